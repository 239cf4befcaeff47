import { spawn } from "../../process/child-process.js";

/** Opens `url` in a browser; resolves false when it could not (no opener, no display, it failed). */
export type OpenBrowser = (url: string) => Promise<boolean>;

/** How long an opener may take to say it failed; after this it is taken to have worked. */
const OPENER_GRACE_MS = 5_000;

/**
 * The platform's own opener: `open` on macOS, `xdg-open` on Linux and the BSDs, `start` on
 * Windows. On Linux without a display there is no browser to open, so it says so at once.
 */
export const openSystemBrowser: OpenBrowser = (url) => {
  const env = process.env;
  let command: string;
  let args: string[];
  if (process.platform === "darwin") {
    command = "open";
    args = [url];
  } else if (process.platform === "win32") {
    command = "cmd";
    // The empty title keeps `start` from reading the quoted URL as the window title.
    args = ["/c", "start", '""', url.replace(/&/g, "^&")];
  } else {
    if (!env["DISPLAY"] && !env["WAYLAND_DISPLAY"]) return Promise.resolve(false);
    command = "xdg-open";
    args = [url];
  }
  return new Promise<boolean>((resolve) => {
    let settled = false;
    const done = (ok: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(ok);
    };
    const child = spawn(command, args, { stdio: "ignore", detached: process.platform !== "win32" });
    const timer = setTimeout(() => {
      child.unref();
      done(true);
    }, OPENER_GRACE_MS);
    timer.unref();
    child.once("error", () => done(false));
    child.once("exit", (code) => done(code === 0));
  });
};
