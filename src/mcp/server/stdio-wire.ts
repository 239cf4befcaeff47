import type { Readable, Writable } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { answerLine } from "./shared-results.js";

/**
 * The SDK's stdio transport, writing an answer that carries a shared result (shared-results.ts)
 * from that result's JSON made once; every other message goes the SDK's way.
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
    const line = this.#closed ? undefined : answerLine(message);
    return line === undefined ? super.send(message) : written(this.#output, line);
  }
}

/** Writes `line`, settling as the SDK's send does: once written, or once drained when the stream is full. */
function written(output: Writable, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      output.off("drain", onDrain);
      reject(error);
    };
    const onDrain = () => {
      output.off("error", onError);
      resolve();
    };
    output.once("error", onError);
    if (output.write(line)) {
      output.off("error", onError);
      resolve();
    } else output.once("drain", onDrain);
  });
}
