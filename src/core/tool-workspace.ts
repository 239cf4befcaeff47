/** An extra place tools may reach besides the root; only configuration adds these. */
export interface ExtraRoot {
  path: string;
  writable: boolean;
}

export interface ResolveOptions {
  /** The path will be written: protected files (tackle's config, .git/hooks) are refused. */
  write?: boolean;
}

/** A path inside the workspace, resolved through every symlink. */
export interface ResolvedPath {
  /** Absolute real path (symlinks followed; the missing tail appended as given). */
  absolute: string;
  /** Relative to the root that contains it, "/"-separated; "." for the root itself. */
  relative: string;
  /** The root it lies in. */
  root: string;
}

/**
 * The boundary a tool works within, as tools see it through `ctx.workspace`. The core names only
 * this shape; `Workspace` (src/workspace) is the implementation, so the core never depends on it.
 */
export interface ToolWorkspace {
  readonly root: string;
  readonly extraRoots: readonly ExtraRoot[];
  /** The root (main or extra) that contains an absolute path, or undefined when it is outside all of them. */
  rootOf(absolute: string, write?: boolean): string | undefined;
  relative(absolute: string): string;
  display(resolved: ResolvedPath): string;
  resolve(input: string, options?: ResolveOptions): Promise<ResolvedPath>;
  /** {@link resolve} without a promise, for hooks that run on every call (a read's scope and execute). */
  resolveSync(input: string, options?: ResolveOptions): ResolvedPath;
  withExtraRoot(extra: ExtraRoot): ToolWorkspace;
}

let defaultWorkspace: ((cwd: string) => ToolWorkspace) | undefined;

/** Called once by the workspace module, so direct `tool.execute(args)` calls get the current directory as their boundary. */
export function setDefaultWorkspace(open: (cwd: string) => ToolWorkspace): void {
  defaultWorkspace = open;
}

/** The workspace a direct call runs in when its context names none. */
export function openDefaultWorkspace(cwd: string): ToolWorkspace {
  if (!defaultWorkspace)
    throw new Error("No workspace: pass ctx.workspace (Workspace.open(dir) from tackle) when calling execute directly.");
  return defaultWorkspace(cwd);
}
