import type { IncomingMessage, ServerResponse } from "node:http";

export type Handler = (req: IncomingMessage, res: ServerResponse, url: URL, params: string[]) => Promise<void> | void;

/** One entry of the API's route table. */
export interface Route {
  /** The path, or a pattern whose groups become `params`. */
  path: string | RegExp;
  methods: string[];
  handle: Handler;
}
