import type { Readable, Writable } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { messageJson } from "./shared-results.js";

/**
 * The SDK's stdio transport, writing each message as its JSON's pieces and a newline in one corked
 * write: the SDK joins a message's JSON and its newline into a new string, which the write then
 * copies once more, 24 KB for a file read's answer; and an answer carrying a shared result goes
 * out from that result's JSON made once (shared-results.ts). After close, the SDK's send refuses.
 */
export class StdioWire extends StdioServerTransport {
  readonly #output: Writable;
  #closed = false;

  constructor(input: Readable, output: Writable) {
    super(input, output);
    this.#output = output;
  }

  override async close(): Promise<void> {
    this.#closed = true;
    await super.close();
  }

  override send(message: JSONRPCMessage): Promise<void> {
    return this.#closed ? super.send(message) : written(this.#output, message);
  }
}

/**
 * Writes `message` and a newline, settling as the SDK's send does: once written, or once drained
 * when the stream is full; a message that cannot be made JSON rejects, and writes nothing.
 */
function written(output: Writable, message: JSONRPCMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    const pieces = messageJson(message);
    const onError = (error: Error) => {
      output.off("drain", onDrain);
      reject(error);
    };
    const onDrain = () => {
      output.off("error", onError);
      resolve();
    };
    output.once("error", onError);
    output.cork();
    for (const piece of pieces) output.write(piece);
    const room = output.write("\n");
    output.uncork();
    if (room) {
      output.off("error", onError);
      resolve();
    } else output.once("drain", onDrain);
  });
}
