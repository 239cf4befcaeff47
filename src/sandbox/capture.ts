import type { ChildProcess } from "node:child_process";
import { spawn } from "../process/child-process.js";
import type { Writable } from "node:stream";

/** The PATH sandboxes and their probes run with. */
export const SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * Runs a probe to its end (bubblewrap's, the copy-on-write view's): its exit code, output and the
 * tail of its errors, with `inputs` written to descriptors 3 onwards. A probe that hangs is killed
 * after 10 s, so it cannot hang every sandboxed call after it.
 */
export function capture(file: string, args: string[], inputs: Buffer[] = []): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    let out = "";
    let err = "";
    let child: ChildProcess;
    try {
      child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe", ...inputs.map(() => "pipe" as const)], env: { PATH: SANDBOX_PATH } });
    } catch (e) {
      resolve({ code: -1, out, err: (e as Error).message });
      return;
    }
    inputs.forEach((data, i) => {
      const pipe = child.stdio[3 + i] as Writable;
      pipe.on("error", () => {});
      pipe.end(data);
    });
    // A probe that hangs must not hang every sandboxed call after it.
    const timer = setTimeout(() => {
      err += "(no answer within 10 s)";
      child.kill("SIGKILL");
    }, 10_000);
    timer.unref();
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ code: -1, out, err: e.message });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : -1), out, err });
    });
  });
}
