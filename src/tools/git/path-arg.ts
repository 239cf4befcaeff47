import { z } from "zod";

/** The optional `path` argument the read-only git tools share. */
export const optionalPath = z.string().optional().describe("A file or directory in the workspace");
