import { z } from "zod";
import { withKeySpellings } from "../compat/key-spellings.js";

/**
 * One entry of `mcpServers`, the shape Claude Desktop, Cursor and other MCP clients use. Keys
 * are matched without regard to case (spec 000's `Command`, `Args`, `Url`...);
 * `connectTimeoutMs` / `callTimeoutMs` are finer controls than `timeoutMs`.
 */
const entryShape = () =>
  z.looseObject({
    transport: z.enum(["stdio", "http", "sse", "streamable-http"]).optional(),
    type: z.enum(["stdio", "http", "sse", "streamable-http"]).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    url: z.string().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    /** Time limit for connecting, and for a call without progress, unless the two below say otherwise. */
    timeoutMs: z.number().int().positive().optional(),
    connectTimeoutMs: z.number().int().positive().optional(),
    callTimeoutMs: z.number().int().positive().optional(),
    /** Trust the server's tool annotations (readOnlyHint...) to decide approval. Default false. */
    trusted: z.boolean().optional(),
    /**
     * Limits for a stdio server's process: CPU seconds, memory in bytes, open files.
     * Defaults: 3600 s, 1 GiB, 1024 files; `false` sets none.
     */
    limits: z
      .union([
        z.literal(false),
        z
          .object({
            cpuSeconds: z.number().int().positive().optional(),
            memoryBytes: z.number().int().positive().optional(),
            openFiles: z.number().int().positive().optional(),
          })
          .strict(),
      ])
      .optional(),
    disabled: z.boolean().optional(),
  });

/** Built when first used (z.lazy), like the configuration it is part of. */
export const McpServerEntrySchema = z.lazy(() => withKeySpellings(entryShape()));

export type McpServerEntry = z.infer<typeof McpServerEntrySchema>;
