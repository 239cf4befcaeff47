import type { google } from "googleapis";

/**
 * The OAuth2 client class googleapis is built against. googleapis carries its own copy of
 * google-auth-library, whose classes are not type-compatible with the top-level one, so the
 * client is created from `google.auth.OAuth2` and typed from it.
 */
export type OAuth2Client = InstanceType<typeof google.auth.OAuth2>;

/** Tokens as the client holds them. */
export type Credentials = Parameters<OAuth2Client["setCredentials"]>[0];
