import { afterEach, describe, expect, it } from "vitest";
import { linkedinTools } from "../../../src/tools/linkedin/index.js";
import { jobIdFrom, type JobDetail } from "../../../src/tools/linkedin/parse.js";
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

async function detail(server: FakeServer, args: Record<string, unknown>) {
  const tools = await linkedinTools(groupContext({ services: { linkedin: { baseUrl: server.url } } }));
  const { runner } = runnerFor(tools);
  const outcome = await runner.run({ name: "linkedin_job_detail", args });
  await runner.close();
  return outcome;
}

describe("linkedin_job_detail", () => {
  it("reads the description and criteria of a posting from its URL", async () => {
    const server = await fake();
    const outcome = await detail(server, {
      url: "https://www.linkedin.com/jobs/view/senior-rust-engineer-at-ferrous-systems-3812345678?refId=abc&trackingId=def",
    });
    expect(outcome.status).toBe("success");
    expect(server.requests.map((r) => r.url)).toEqual(["/jobs-guest/jobs/api/jobPosting/3812345678"]);
    const c = outcome.content;
    expect(c).toContain(
      [
        "Senior Rust Engineer — Ferrous Systems",
        "Location: Berlin, Berlin, Germany",
        "Posted: 1 week ago",
        "Applicants: Over 200 applicants",
        "Seniority level: Mid-Senior level",
        "Employment type: Full-time",
        "Job function: Engineering and Information Technology",
        "Industries: Software Development",
        "Job ID: 3812345678",
        `URL: ${server.url}/jobs/view/3812345678`,
        "",
        "--- Description ---",
        "About us",
        "",
        "We build safety-critical Rust tooling & train teams.",
      ].join("\n"),
    );
    expect(c).toContain("What you will do:\n• Design the compiler's test infrastructure\n• Mentor engineers");
    expect(c).toContain("Apply at our careers page [https://ferrous-systems.com/careers].");
    expect(c).not.toContain("trackView");
    expect(c).not.toContain("Show more");
    expect(c).toContain('<untrusted-content source="LinkedIn job posting 3812345678">');
    const structured = outcome.structured as JobDetail;
    expect(structured.criteria).toHaveLength(4);
    expect(structured.title).toBe("Senior Rust Engineer");
    expect(structured.description).toContain("Mentor engineers");
  });

  it.each([
    { jobId: "3812345678" },
    { url: "3812345678" },
    { url: "https://www.linkedin.com/jobs/view/3812345678/" },
    { url: "https://www.linkedin.com/jobs/search/?currentJobId=3812345678&keywords=rust" },
    { url: "urn:li:jobPosting:3812345678" },
    { url: "https://www.linkedin.com/jobs-guest/jobs/api/jobPosting/3812345678" },
  ])("finds the id in %j", async (args) => {
    const server = await fake();
    const outcome = await detail(server, args);
    expect(outcome.status).toBe("success");
    expect(server.requests[0]!.url).toBe("/jobs-guest/jobs/api/jobPosting/3812345678");
  });

  it("never fetches the host of the URL it is given", async () => {
    const elsewhere = await fake();
    const server = await fake();
    const outcome = await detail(server, { url: `${elsewhere.url}/jobs/view/3812345678` });
    expect(outcome.status).toBe("success");
    expect(elsewhere.requests).toHaveLength(0);
    expect(server.requests).toHaveLength(1);
  });

  it.each([{}, { url: "https://www.linkedin.com/feed/" }, { jobId: "abc" }, { url: "https://example.com/jobs/view/12" }])(
    "refuses %j without a request",
    async (args) => {
      const server = await fake();
      const outcome = await detail(server, args);
      expect(outcome.error?.code).toBe("INVALID_ARGS");
      expect(server.requests).toHaveLength(0);
    },
  );

  it("says when the posting does not exist", async () => {
    const server = await fake();
    const outcome = await detail(server, { jobId: "99999999" });
    expect(outcome.error?.code).toBe("EXECUTION_ERROR");
    expect(outcome.content).toContain("LinkedIn has no job posting 99999999 (HTTP 404)");
    expect(server.requests).toHaveLength(1);
  });

  it("fails loudly when the page has no description markup", async () => {
    const server = await fake();
    const outcome = await detail(server, { jobId: "1111111" });
    expect(outcome.error?.code).toBe("EXECUTION_ERROR");
    expect(outcome.content).toContain("did not have the expected layout (no div.show-more-less-html__markup");
  });

  it("retries after 429 and reports 5xx as UNAVAILABLE", async () => {
    let calls = 0;
    const server = await fake((_url, res) => {
      if (++calls > 1) return false;
      res.writeHead(429, { "retry-after": "1" }).end();
      return true;
    });
    expect((await detail(server, { jobId: "3812345678" })).status).toBe("success");
    expect(server.requests).toHaveLength(2);
    const down = await fake((_url, res) => {
      res.writeHead(503).end();
      return true;
    });
    expect((await detail(down, { jobId: "3812345678" })).error?.code).toBe("UNAVAILABLE");
  });
});

describe("jobIdFrom", () => {
  it("reads the forms a model is likely to pass", () => {
    expect(jobIdFrom(" 4012345678 ")).toBe("4012345678");
    expect(jobIdFrom("https://uk.linkedin.com/jobs/view/data-engineer-at-x-y-z-4012345678?trk=a")).toBe("4012345678");
    expect(jobIdFrom("https://www.linkedin.com/jobs/collections/recommended/?currentJobId=4012345678")).toBe("4012345678");
    expect(jobIdFrom("https://www.linkedin.com/jobs/view/4012345678")).toBe("4012345678");
    expect(jobIdFrom("https://www.linkedin.com/in/someone")).toBeUndefined();
    expect(jobIdFrom("12")).toBeUndefined();
  });
});
