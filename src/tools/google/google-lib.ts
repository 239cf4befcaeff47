import { importAtRuntime } from "../../process/import-at-runtime.js";

/**
 * googleapis costs over a second and ~150 MB to load, so it is loaded on the first Google call,
 * not when tackle starts (most runs never use it). Every API request goes through
 * `GoogleAccount.call`, which awaits {@link loadGoogle} first; after that {@link google} is ready.
 */
type GoogleApis = typeof import("googleapis");

let loaded: GoogleApis | undefined;
let loading: Promise<GoogleApis> | undefined;

export async function loadGoogle(): Promise<GoogleApis> {
  loading ??= importAtRuntime<GoogleApis>("googleapis").then((mod) => (loaded = mod));
  return loading;
}

/** googleapis' `google` object; only after {@link loadGoogle} has settled. */
export function google(): GoogleApis["google"] {
  if (!loaded) throw new Error("googleapis is used before it was loaded: call through GoogleAccount.call.");
  return loaded.google;
}
