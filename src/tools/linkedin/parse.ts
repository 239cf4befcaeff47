import type { HTMLElement } from "node-html-parser";
import { lazyRequire } from "../../process/lazy-require.js";

const htmlParser = lazyRequire<typeof import("node-html-parser")>("node-html-parser");
const parse = (html: string, options: { comment: boolean }): HTMLElement => htmlParser().parse(html, options);
import { ToolError } from "../../core/errors.js";
import { htmlToText } from "../../net/html-to-text.js";

/** One job card from LinkedIn's guest search. */
export interface JobCard {
  id: string;
  title: string;
  company?: string;
  companyUrl?: string;
  location?: string;
  /** ISO date from `time[datetime]` (YYYY-MM-DD). */
  postedDate?: string;
  /** The page's own wording ("2 days ago"). */
  postedText?: string;
  salary?: string;
  benefits?: string;
  url: string;
}

/** What the guest job page says about one posting. */
export interface JobDetail {
  id: string;
  title?: string;
  company?: string;
  location?: string;
  postedText?: string;
  applicants?: string;
  /** Seniority level, employment type, job function, industries... as LinkedIn labels them. */
  criteria: Array<{ name: string; value: string }>;
  description: string;
  url: string;
}

/** Thrown when a page no longer has the shape the parser knows: better loud than empty. */
export function layoutChanged(what: string, detail: string): ToolError {
  return new ToolError(
    "EXECUTION_ERROR",
    `LinkedIn's ${what} did not have the expected layout (${detail}). LinkedIn may have changed its pages; ` +
      "the LinkedIn tools need updating. Use web_search or web_fetch as a fallback.",
    { recoverable: false },
  );
}

function clean(text: string | undefined): string | undefined {
  // node-html-parser's `text` has entities decoded already.
  const t = text?.replace(/\s+/g, " ").trim();
  return t ? t : undefined;
}

function textOf(root: HTMLElement, selector: string): string | undefined {
  const el = root.querySelector(selector);
  return el ? clean(el.text) : undefined;
}

const URN = /urn:li:jobPosting:(\d+)/;

/** A job posting's URL without LinkedIn's tracking parameters. */
function canonicalJobUrl(href: string | undefined, id: string, base: string): string {
  if (href) {
    try {
      const url = new URL(href, base);
      return `${url.origin}${url.pathname}`;
    } catch {
      // falls through
    }
  }
  return `${base}/jobs/view/${id}`;
}

function idFromHref(href: string | undefined): string | undefined {
  if (!href) return undefined;
  return /\/jobs\/view\/(?:[^/?#]*-)?(\d{5,})(?:[/?#]|$)/.exec(href)?.[1] ?? /[?&]currentJobId=(\d+)/.exec(href)?.[1];
}

function parseCard(li: HTMLElement, base: string): JobCard | undefined {
  const card = li.querySelector("[data-entity-urn]") ?? li.querySelector(".base-card");
  if (!card) return undefined;
  const link = card.querySelector("a.base-card__full-link") ?? (card.tagName === "A" && card.classList.contains("base-card") ? card : null);
  const href = link?.getAttribute("href");
  const id = URN.exec(card.getAttribute("data-entity-urn") ?? "")?.[1] ?? idFromHref(href);
  const title = textOf(card, "h3.base-search-card__title");
  if (!id || !title) return undefined;
  const company = textOf(card, "h4.base-search-card__subtitle");
  const companyHref = card.querySelector("h4.base-search-card__subtitle a")?.getAttribute("href");
  const time =
    card.querySelector("time.job-search-card__listdate") ??
    card.querySelector("time.job-search-card__listdate--new") ??
    card.querySelector("time[datetime]");
  const job: JobCard = { id, title, url: canonicalJobUrl(href, id, base) };
  if (company) job.company = company;
  if (companyHref) job.companyUrl = canonicalJobUrl(companyHref, id, base);
  const location = textOf(card, "span.job-search-card__location");
  if (location) job.location = location;
  const datetime = time?.getAttribute("datetime");
  if (datetime) job.postedDate = datetime;
  const posted = time ? clean(time.text) : undefined;
  if (posted) job.postedText = posted;
  const salary = textOf(card, ".job-search-card__salary-info");
  if (salary) job.salary = salary;
  const benefits = textOf(card, ".job-posting-benefits__text");
  if (benefits) job.benefits = benefits;
  return job;
}

/**
 * Parses the HTML fragment of `<li>` job cards that /jobs-guest/jobs/api/seeMoreJobPostings/search
 * returns. An empty fragment means no (more) jobs; a fragment with content but no card in the
 * known shape means the layout changed, which is an error rather than an empty list.
 */
export function parseJobCards(html: string, base: string): { jobs: JobCard[]; skipped: number } {
  const root = parse(html, { comment: false });
  const items = root.querySelectorAll("li");
  if (items.length === 0) {
    if (clean(root.text) === undefined && root.querySelectorAll("*").length === 0) return { jobs: [], skipped: 0 };
    const title = textOf(root, "title");
    throw layoutChanged("job search results", `no <li> job cards in the page${title ? `; its title is "${title}"` : ""}`);
  }
  const jobs: JobCard[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  for (const li of items) {
    // Nested lists (inside a card) are not cards.
    if (li.parentNode && (li.parentNode as HTMLElement).closest?.("li")) continue;
    const job = parseCard(li, base);
    if (!job) {
      skipped++;
      continue;
    }
    if (seen.has(job.id)) continue;
    seen.add(job.id);
    jobs.push(job);
  }
  if (jobs.length === 0) {
    throw layoutChanged(
      "job search results",
      `${items.length} <li> element(s) but none with div.base-card[data-entity-urn] and h3.base-search-card__title`,
    );
  }
  return { jobs, skipped };
}

/** Parses /jobs-guest/jobs/api/jobPosting/ID: the description markup and the criteria list. */
export function parseJobDetail(html: string, id: string, base: string): JobDetail {
  const root = parse(html, { comment: false });
  const markup = root.querySelector("div.show-more-less-html__markup");
  if (!markup) {
    const title = textOf(root, "title");
    throw layoutChanged(
      "job page",
      `no div.show-more-less-html__markup holding the description${title ? `; the page's title is "${title}"` : ""}`,
    );
  }
  const description = htmlToText(markup.innerHTML, { baseUrl: base });
  const criteria: JobDetail["criteria"] = [];
  for (const item of root.querySelectorAll("li.description__job-criteria-item")) {
    const name = textOf(item, ".description__job-criteria-subheader") ?? textOf(item, "h3");
    const value = textOf(item, ".description__job-criteria-text") ?? textOf(item, "span");
    if (name && value) criteria.push({ name, value });
  }
  const detail: JobDetail = { id, criteria, description, url: `${base}/jobs/view/${id}` };
  const title = textOf(root, ".top-card-layout__title") ?? textOf(root, ".topcard__title");
  if (title) detail.title = title;
  const company = textOf(root, "a.topcard__org-name-link") ?? textOf(root, ".topcard__flavor");
  if (company) detail.company = company;
  const location = textOf(root, ".topcard__flavor--bullet");
  if (location) detail.location = location;
  const posted = textOf(root, ".posted-time-ago__text");
  if (posted) detail.postedText = posted;
  const applicants = textOf(root, ".num-applicants__caption");
  if (applicants) detail.applicants = applicants;
  return detail;
}

/**
 * The numeric id in whatever the model has: the id itself, a job URL (/jobs/view/123,
 * /jobs/view/title-at-company-123, ?currentJobId=123), a guest API URL, or a URN.
 */
export function jobIdFrom(input: string): string | undefined {
  const text = input.trim();
  if (/^\d{5,}$/.test(text)) return text;
  return URN.exec(text)?.[1] ?? /\/jobs-guest\/jobs\/api\/jobPosting\/(\d+)/.exec(text)?.[1] ?? idFromHref(text);
}
