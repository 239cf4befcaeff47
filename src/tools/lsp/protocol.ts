import { lazyRequire } from "../../process/lazy-require.js";

/** The language-server protocol library, loaded when a language server is first used (~180 ms otherwise at every start). */
export const protocol = lazyRequire<typeof import("vscode-languageserver-protocol/node")>("vscode-languageserver-protocol/node");
