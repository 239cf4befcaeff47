import type { GroupContext } from "../group.js";
import { serviceBaseUrl } from "../web/config.js";
import { LINKEDIN_DEFAULT_BASE_URL } from "./client.js";

/** `services.linkedin.baseUrl` (default https://www.linkedin.com), without a trailing slash. */
export function linkedinBaseUrl(ctx: Pick<GroupContext, "config">): string {
  return serviceBaseUrl(ctx, "linkedin", LINKEDIN_DEFAULT_BASE_URL);
}
