/**
 * `import()` of a package or a file that is loaded as it is at run time, never bundled: libraries
 * loaded on first use (googleapis, mammoth) and the workspace's tool modules.
 * In the bundled command line, scripts/bundle-cli.mjs swaps this module for the launcher's own
 * `import()`, since code run by node:vm cannot import without an experimental flag.
 */
export function importAtRuntime<T>(specifier: string): Promise<T> {
  return import(specifier) as Promise<T>;
}
