import picomatch from "picomatch";

/**
 * Files no tool may write: an agent that could edit these could grant itself permissions or run
 * code on the next git command.
 */
const PROTECTED = ["tackle.config.json", "config.json", ".tackle/**", ".git/hooks/**", ".git/hooks", ".git/config"];

const isProtected = picomatch(PROTECTED, { dot: true, nocase: true });

export function isProtectedPath(relative: string): boolean {
  return isProtected(relative);
}
