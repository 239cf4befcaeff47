import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type ReadResourceResult,
  type Resource,
} from "@modelcontextprotocol/server";
import type { ToolRegistry } from "../../registry/registry.js";
import type { RunOptions, ToolRunner } from "../../runtime/runner.js";
import { isValidUtf8 } from "../../tools/fs/binary.js";

/** Most files listed as resources. */
const MAX_LISTED = 5000;

const MIME: Record<string, string> = {
  ".md": "text/markdown",
  ".txt": "text/plain",
  ".json": "application/json",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".ts": "text/x-typescript",
  ".py": "text/x-python",
  ".html": "text/html",
  ".css": "text/css",
  ".yml": "application/yaml",
  ".yaml": "application/yaml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".pdf": "application/pdf",
};

/**
 * The workspace's files as MCP resources, for clients that ask (`resources/list`, `resources/read`):
 * listed by the glob tool and read by read_file through the runner, so .gitignore, deny rules,
 * secret files and the workspace boundary hold as they do for tool calls, and each read is audited.
 */
export class WorkspaceResources {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly runner: ToolRunner,
  ) {}

  async list(options: RunOptions): Promise<{ resources: Resource[] }> {
    if (!this.registry.has("glob")) return { resources: [] };
    const outcome = await this.runner.run({ name: "glob", args: { pattern: "**/*", maxResults: MAX_LISTED } }, options);
    const files = (outcome.structured as { files?: unknown } | undefined)?.files;
    if (outcome.status !== "success" || !Array.isArray(files)) return { resources: [] };
    const root = this.runner.workspace.root;
    return {
      resources: files
        .filter((f): f is string => typeof f === "string")
        .map((rel) => {
          const mimeType = MIME[path.extname(rel).toLowerCase()];
          return { uri: pathToFileURL(path.join(root, rel)).href, name: rel, ...(mimeType ? { mimeType } : {}) };
        }),
    };
  }

  async read(uri: string, options: RunOptions): Promise<ReadResourceResult> {
    let absolute: string;
    try {
      absolute = fileURLToPath(uri);
    } catch {
      throw invalid(`tackle serves the workspace's files as file:// resources; "${uri}" is not one.`);
    }
    const outcome = await this.runner.run({ name: "read_file", args: { path: absolute, encoding: "base64" } }, options);
    if (outcome.status !== "success") {
      if (outcome.error?.code === "FILE_NOT_FOUND") throw new ResourceNotFoundError(uri);
      throw invalid(outcome.error?.message ?? outcome.content);
    }
    const structured = outcome.structured as { content?: unknown; size?: unknown } | undefined;
    const data = typeof structured?.content === "string" ? structured.content : "";
    const bytes = Buffer.from(data, "base64");
    if (typeof structured?.size === "number" && bytes.length !== structured.size) {
      throw invalid(`${uri} is too large to serve whole as a resource; call the read_file tool with offset and limit instead.`);
    }
    const mimeType = MIME[path.extname(absolute).toLowerCase()];
    const text = !bytes.includes(0) && isValidUtf8(bytes);
    return {
      contents: [
        text
          ? { uri, text: bytes.toString("utf8"), mimeType: mimeType ?? "text/plain" }
          : { uri, blob: data, mimeType: mimeType ?? "application/octet-stream" },
      ],
    };
  }
}

const invalid = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message);
