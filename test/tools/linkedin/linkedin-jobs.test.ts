import { afterEach, describe, expect, it } from "vitest";
import { linkedinTools } from "../../../src/tools/linkedin/index.js";
import { parseJobCards } from "../../../src/tools/linkedin/parse.js";
import type { JobCard } from "../../../src/tools/linkedin/parse.js";
import type { FakeServer } from "../../fixtures/web/fake-server.js";
import { startFakeLinkedIn, type Override } from "../../fixtures/linkedin/fake-linkedin.js";
import { groupContext, runnerFor } from "../web/helpers.js";

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function fake(override?: Override): Promise<FakeServer> {
  const server = await startFakeLinkedIn(override);
  servers.push(server);
  return server;
}

async function searchJobs(server: FakeServer, args: Record<string, unknown>) {
  const tools = await linkedinTools(groupContext({ services: { linkedin: { baseUrl: server.url } } }));
  const { runner, asked } = runnerFor(tools);
  const outcome = await runner.run({ name: "linkedin_jobs", args });
  await runner.close();
  return { outcome, asked };
}

function sentQuery(server: FakeServer, index = -1): URLSearchParams {
  return new URL(server.requests.at(index)!.url, "http://x").searchParams;
}

describe("linkedinTools registration", () => {
  it("always has both tools, with LinkedIn as the default base", async () => {
    const tools = await linkedinTools(groupContext());
    expect(tools.map((t) => t.name)).toEqual(["linkedin_jobs", "linkedin_job_detail"]);
  });

  it("rejects an invalid base URL with the field named", () => {
    expect(() => linkedinTools(groupContext({ services: { linkedin: { baseUrl: "not a url" } } }))).toThrow(/services\.linkedin/);
  });
});

describe("linkedin_jobs", () => {
  it("maps every filter to the guest search parameters", async () => {
    const server = await fake();
    const { outcome, asked } = await searchJobs(server, {
      keywords: "rust engineer",
      location: "Berlin, Germany",
      datePosted: "pastWeek",
      jobType: ["full-time", "C"],
      remote: ["remote", "hybrid"],
      experienceLevel: ["mid-senior", "entry"],
      sortBy: "recent",
    });
    expect(outcome.status).toBe("success");
    expect(asked).toHaveLength(0);
    expect(server.requests[0]!.url.split("?")[0]).toBe("/jobs-guest/jobs/api/seeMoreJobPostings/search");
    const q = sentQuery(server);
    expect(Object.fromEntries(q)).toEqual({
      keywords: "rust engineer",
      location: "Berlin, Germany",
      f_TPR: "r604800",
      f_JT: "F,C",
      f_WT: "2,3",
      f_E: "2,4",
      sortBy: "DD",
      start: "0",
    });
    expect(server.requests[0]!.headers["user-agent"]).toMatch(/Chrome/);
  });

  it.each([
    [{ datePosted: "past24h" }, "f_TPR", "r86400"],
    [{ datePosted: "24h" }, "f_TPR", "r86400"],
    [{ datePosted: "past month" }, "f_TPR", "r2592000"],
    [{ datePosted: "any" }, "f_TPR", null],
    [{ jobType: "Full-time, part_time" }, "f_JT", "F,P"],
    [{ jobType: "internship" }, "f_JT", "I"],
    [{ jobType: ["T", "V", "O"] }, "f_JT", "T,V,O"],
    [{ remote: "on-site" }, "f_WT", "1"],
    [{ experienceLevel: ["executive", "internship", "director", "associate"] }, "f_E", "1,3,5,6"],
    [{ sortBy: "relevance" }, "sortBy", "R"],
    [{ start: 25 }, "start", "25"],
  ] as const)("sends %j as %s=%s", async (extra, param, value) => {
    const server = await fake();
    await searchJobs(server, { keywords: "rust", ...extra });
    expect(sentQuery(server).get(param)).toBe(value);
  });

  it("lists the cards with title, company, location, date, id and a clean URL", async () => {
    const server = await fake();
    const { outcome } = await searchJobs(server, { keywords: "rust", location: "Germany" });
    expect(outcome.status).toBe("success");
    const c = outcome.content;
    expect(c).toContain('LinkedIn jobs for "rust" in Germany: 3 results starting at 0.');
    expect(c).toContain(
      [
        "1. Senior Rust Engineer — Ferrous Systems",
        "   Location: Berlin, Berlin, Germany",
        "   Posted: 2026-11-10 (1 week ago)",
        "   Salary: €80,000.00 - €100,000.00",
        "   Actively Hiring",
        "   Job ID: 3812345678",
        "   URL: https://www.linkedin.com/jobs/view/senior-rust-engineer-at-ferrous-systems-3812345678",
      ].join("\n"),
    );
    expect(c).toContain("2. Backend Developer (Rust) & Ops — Acme GmbH");
    expect(c).toContain("Posted: 2026-11-22 (12 hours ago)");
    expect(c).toContain("3. Rust Intern — Startup Ltd\n   Location: Remote");
    expect(c).toContain("call linkedin_jobs again with start=3");
    expect(c).toContain('<untrusted-content source="LinkedIn job listings">');
    expect(c).not.toContain("trackingId");

    const structured = outcome.structured as { jobs: JobCard[]; start: number; nextStart: number; count: number };
    expect(structured.count).toBe(3);
    expect(structured.nextStart).toBe(3);
    expect(structured.jobs.map((j) => j.id)).toEqual(["3812345678", "3812345679", "3812345680"]);
    expect(structured.jobs[0]).toEqual({
      id: "3812345678",
      title: "Senior Rust Engineer",
      company: "Ferrous Systems",
      companyUrl: "https://de.linkedin.com/company/ferrous-systems",
      location: "Berlin, Berlin, Germany",
      postedDate: "2026-11-10",
      postedText: "1 week ago",
      salary: "€80,000.00 - €100,000.00",
      benefits: "Actively Hiring",
      url: "https://www.linkedin.com/jobs/view/senior-rust-engineer-at-ferrous-systems-3812345678",
    });
  });

  it("pages with start", async () => {
    const server = await fake();
    const { outcome } = await searchJobs(server, { keywords: "rust", start: 3 });
    expect(outcome.content).toContain("2 results starting at 3.");
    expect(outcome.content).toContain("4. Embedded Rust Engineer — Chips Inc");
    expect(outcome.content).toContain("5. Rust Contractor — Consultancy\n   Location: Cologne, Germany\n   Job ID: 3812345682");
    expect((outcome.structured as { nextStart: number }).nextStart).toBe(5);
    const last = await searchJobs(server, { keywords: "rust", start: 5 });
    expect(last.outcome.status).toBe("success");
    expect(last.outcome.content).toBe('No more LinkedIn jobs found for "rust" after the first 5.');
  });

  it("says no jobs were found for an empty result page", async () => {
    const server = await fake();
    const { outcome } = await searchJobs(server, { keywords: "nothing", location: "Atlantis" });
    expect(outcome.status).toBe("success");
    expect(outcome.content).toContain('No LinkedIn jobs found for "nothing" in Atlantis.');
    expect((outcome.structured as { jobs: unknown[] }).jobs).toEqual([]);
  });

  it("fails loudly when the cards no longer match the known layout", async () => {
    const server = await fake();
    const { outcome } = await searchJobs(server, { keywords: "changed" });
    expect(outcome.status).toBe("error");
    expect(outcome.error?.code).toBe("EXECUTION_ERROR");
    expect(outcome.content).toContain("did not have the expected layout");
    expect(outcome.content).toContain("2 <li> element(s) but none with div.base-card[data-entity-urn]");
    expect(server.requests).toHaveLength(1);
  });

  it("fails loudly on a page that is not a job list", async () => {
    const server = await fake();
    const { outcome } = await searchJobs(server, { keywords: "authwall" });
    expect(outcome.error?.code).toBe("EXECUTION_ERROR");
    expect(outcome.content).toContain('its title is "Sign Up | LinkedIn"');
  });

  it("reports a redirect to the sign-in wall", async () => {
    const server = await fake((url, res) => {
      if (!url.pathname.startsWith("/jobs-guest")) return false;
      res.writeHead(302, { location: "/authwall?trk=x" }).end();
      return true;
    });
    const { outcome } = await searchJobs(server, { keywords: "rust" });
    expect(outcome.error?.code).toBe("PERMISSION_DENIED");
    expect(outcome.content).toContain("LinkedIn asked to sign in");
  });

  it("retries after 429 with Retry-After", async () => {
    let calls = 0;
    const server = await fake((_url, res) => {
      if (++calls > 1) return false;
      res.writeHead(429, { "retry-after": "1" }).end();
      return true;
    });
    const { outcome } = await searchJobs(server, { keywords: "rust" });
    expect(outcome.status).toBe("success");
    expect(server.requests).toHaveLength(2);
  });

  it("does not hammer LinkedIn after its 999 block", async () => {
    const server = await fake((_url, res) => {
      res.writeHead(999).end();
      return true;
    });
    const { outcome } = await searchJobs(server, { keywords: "rust" });
    expect(outcome.error?.code).toBe("RATE_LIMITED");
    expect(outcome.content).toContain("999");
    expect(server.requests).toHaveLength(1);
  });

  it("reports 5xx as UNAVAILABLE after retrying, and 403 without retrying", async () => {
    const failing = await fake((_url, res) => {
      res.writeHead(500).end();
      return true;
    });
    const five = await searchJobs(failing, { keywords: "rust" });
    expect(five.outcome.error?.code).toBe("UNAVAILABLE");
    expect(failing.requests).toHaveLength(3);
    const forbidden = await fake((_url, res) => {
      res.writeHead(403).end();
      return true;
    });
    const four = await searchJobs(forbidden, { keywords: "rust" });
    expect(four.outcome.error?.code).toBe("PERMISSION_DENIED");
    expect(forbidden.requests).toHaveLength(1);
  });

  it.each([
    [{}, "give keywords, a location, or both"],
    [{ keywords: "x", jobType: "full-time-ish" }, "job type"],
    [{ keywords: "x", remote: "moon" }, "on-site"],
    [{ keywords: "x", datePosted: "yesterday-ish" }, "date posted"],
    [{ keywords: "x", start: -1 }, "start"],
    [{ keywords: "x", salary: 5 }, "salary"],
  ])("refuses %j", async (args, message) => {
    const server = await fake();
    const { outcome } = await searchJobs(server, args);
    expect(outcome.error?.code).toBe("INVALID_ARGS");
    expect(outcome.content).toContain(message);
    expect(server.requests).toHaveLength(0);
  });
});

describe("parseJobCards", () => {
  const card = (id: string, title: string) =>
    `<li><div class="base-card" data-entity-urn="urn:li:jobPosting:${id}"><a class="base-card__full-link" href="/jobs/view/x-${id}?a=1"></a>` +
    `<h3 class="base-search-card__title">${title}</h3><ul><li>nested, not a card</li></ul></div></li>`;

  it("keeps good cards, counts the odd ones, skips duplicates and resolves relative links", () => {
    const html =
      card("100001", "One") + "<li><div class='promo'>Sign in for more</div></li>" + card("100001", "One again") + card("100002", "Two");
    const { jobs, skipped } = parseJobCards(html, "https://www.linkedin.com");
    expect(jobs.map((j) => [j.id, j.title, j.url])).toEqual([
      ["100001", "One", "https://www.linkedin.com/jobs/view/x-100001"],
      ["100002", "Two", "https://www.linkedin.com/jobs/view/x-100002"],
    ]);
    expect(skipped).toBe(1);
  });

  it("takes the id from the link when the card has no URN", () => {
    const html =
      `<li><div class="base-card"><a class="base-card__full-link" ` +
      `href="https://www.linkedin.com/jobs/view/dev-at-co-4000000001?x=1"></a><h3 class="base-search-card__title">Dev</h3></div></li>`;
    expect(parseJobCards(html, "https://www.linkedin.com").jobs[0]?.id).toBe("4000000001");
  });

  it("treats an empty fragment as no jobs but text without cards as a changed layout", () => {
    expect(parseJobCards("  \n <!-- nothing --> ", "https://x").jobs).toEqual([]);
    expect(() => parseJobCards("<div>We are down for maintenance</div>", "https://x")).toThrow(/expected layout/);
  });
});
