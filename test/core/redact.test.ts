import { describe, expect, it } from "vitest";
import { redact, redactText, REDACTED } from "../../src/core/redact.js";

// Fake credentials in each provider's documented shape (none is real).
const TOKENS: Record<string, string> = {
  anthropic: "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcdEFGH",
  "openai project": "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd",
  "openai legacy": "sk-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH",
  "github classic": "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
  "github oauth": "gho_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
  "github app": "ghs_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
  "github fine-grained": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQR",
  "gitlab personal": "glpat-AbCdEfGhIjKlMnOpQrSt",
  "gitlab deploy": "gldt-AbCdEfGhIjKlMnOpQrSt",
  "gitlab runner": "glrt-AbCdEfGhIjKlMnOpQrSt",
  "slack bot": "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
  "slack user": "xoxp-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
  "slack app": "xapp-1-A0123456789-1234567890123-abcdef0123456789",
  "stripe live": "sk_live_AbCdEfGhIjKlMnOpQrStUvWx",
  "stripe restricted": "rk_live_AbCdEfGhIjKlMnOpQrStUvWx",
  "stripe webhook": "whsec_AbCdEfGhIjKlMnOpQrStUvWx",
  "aws key id": "AKIAIOSFODNN7EXAMPLE",
  "aws temporary key id": "ASIAIOSFODNN7EXAMPLE",
  "google api key": "AIzaSyA-AbCdEfGhIjKlMnOpQrStUvWxYz01234",
  "google access token": "ya29.a0AfH6SMBxAbCdEfGhIjKlMnOpQrStUvWxYz",
  "google client secret": "GOCSPX-AbCdEfGhIjKlMnOpQrStUvWxYz",
  npm: "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
  "hugging face": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
  digitalocean: "dop_v1_" + "a1b2c3d4".repeat(8),
  sendgrid: "SG.AbCdEfGhIjKlMnOpQrStUv.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg",
  shopify: "shpat_" + "a1b2c3d4".repeat(4),
  mailgun: "key-" + "a1b2c3d4".repeat(4),
  twilio: "SK" + "a1b2c3d4".repeat(4),
  telegram: "123456789:AAAbCdEfGhIjKlMnOpQrStUvWxYz0123456",
  jwt: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
};

/** Each token in the places it turns up in a tool call's arguments. */
const CONTEXTS: Array<(t: string) => string> = [
  (t) => t,
  (t) => `curl -H 'X-Api: ${t}' https://api.example.test`,
  (t) => `export THING=${t}`,
  (t) => `{"value": "${t}"}`,
  (t) => `see ${t}, then retry`,
];

describe("redaction of known token formats", () => {
  for (const [kind, token] of Object.entries(TOKENS)) {
    it(`hides a ${kind} token wherever it stands`, () => {
      for (const context of CONTEXTS) {
        const text = context(token);
        const out = redactText(text);
        expect(out, text).not.toContain(token);
        expect(out).toContain(REDACTED);
      }
    });
  }
});

describe("redaction of secrets in commands, URLs and config text", () => {
  const cases: Array<[string, string]> = [
    ["https://alice:hunter2pass@db.example.test/x", "hunter2pass"],
    ["postgres://app:s3cr3t-Pw@10.0.0.5:5432/prod", "s3cr3t-Pw"],
    ["git clone https://bob:glpassword99@gitlab.example.test/r.git", "glpassword99"],
    ["mysql -u root -pTopSecret1 shop", "TopSecret1"],
    ["mysqldump --single-transaction -h db -pTopSecret2 shop > d.sql", "TopSecret2"],
    ["mysql --password=TopSecret3 shop", "TopSecret3"],
    ["psql --password TopSecret4", "TopSecret4"],
    ["sshpass -p TopSecret5 ssh host", "TopSecret5"],
    ["curl -u admin:TopSecret6 https://x.test", "TopSecret6"],
    ["deploy --api-key=TopSecret7", "TopSecret7"],
    ["deploy --token TopSecret8", "TopSecret8"],
    ["pass: TopSecret9", "TopSecret9"],
    ["password = 'TopSecret10'", "TopSecret10"],
    ['{"db_password": "TopSecret11"}', "TopSecret11"],
    ["PGPASSWORD=TopSecret12 psql", "TopSecret12"],
    ["MYSQL_PWD=TopSecret13 mysql", "TopSecret13"],
    ["AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
    ["client_secret: TopSecret14", "TopSecret14"],
    ["Authorization: Bearer abcdefgh12345678", "abcdefgh12345678"],
    ["Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="],
    ["Cookie: session=TopSecret15; theme=dark", "TopSecret15"],
    ["Server=db;Database=x;User Id=sa;Password=TopSecret16;", "TopSecret16"],
    ["-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAtopsecretkeymaterial\n-----END RSA PRIVATE KEY-----", "topsecretkeymaterial"],
    [
      "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----",
      "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU",
    ],
  ];
  for (const [text, secret] of cases) {
    it(`hides the secret in: ${text.split("\n")[0]}`, () => {
      expect(redactText(text)).not.toContain(secret);
    });
  }

  it("hides values of fields whose names say secret, in any case style", () => {
    const out = redact({ apiKey: "a1", DB_PASSWORD: "a2", "x-auth-token": "a3", nested: { clientSecret: "a4", sessionId: "a5" } });
    expect(JSON.stringify(out)).not.toMatch(/a[1-5]"/);
  });
});

describe("redaction leaves ordinary text alone", () => {
  const ordinary = [
    "git commit -m 'the author passed 3 tests'",
    "compass: north",
    "bypass: false",
    "author: Alice",
    "passenger=3",
    "max_tokens: 1024",
    "const tokens = tokenize(source);",
    "https://example.test/path?q=1",
    "grep -rn password src/",
    "ls -la /home/alice",
    "echo $HOME",
    "sort --key=2 data.txt",
  ];
  for (const text of ordinary) {
    it(`keeps: ${text}`, () => {
      expect(redactText(text)).toBe(text);
    });
  }

  it("keeps field names like author, passage and tokens_used", () => {
    const value = { author: "Alice", passage: "text", tokens_used: 12, compass: "n" };
    expect(redact(value)).toEqual(value);
  });
});

describe("passwords in URLs, in every form they reach a log", () => {
  it("plain, JSON-escaped, percent-encoded inside another URL, and a token given as the user", () => {
    const forms = [
      "git clone https://user:hunter2@example.com/repo",
      '{"url":"https:\\/\\/user:hunter2@example.com\\/x"}',
      "https://proxy.example/?target=https%3A%2F%2Fuser%3Ahunter2%40example.com%2Fx",
      "postgres://app:hunter2@db:5432/app",
    ];
    for (const form of forms) expect(redactText(form), form).not.toContain("hunter2");
    expect(redactText("https://abcdefghijklmnopqrstuvwxyz123456@github.com/x")).toBe("https://[REDACTED]@github.com/x");
    expect(redactText("https://bob@example.com/x")).toBe("https://bob@example.com/x");
  });
});

describe("long strings are cut, and only what is kept is cleaned", () => {
  const key = `sk-ant-${"a1B2".repeat(10)}`;

  it("hides a secret the cut splits, whole, and counts what was left out", () => {
    const text = `${"x".repeat(990)} token ${key} end\n${"y".repeat(5000)}`;
    const out = redact(text, 1000) as string;
    expect(out).not.toContain("sk-ant-");
    expect(out).not.toContain("a1B2");
    expect(out).toMatch(/… \[\d+ more characters\]$/);
    const more = Number(/\[(\d+) more characters\]$/.exec(out)![1]);
    // What the whole string cleaned would have left out, to the character.
    expect(more).toBe(redactText(text).length - 1000);
  });

  it("hides a private key the cut splits, to the end of what is kept", () => {
    const pem = `-----BEGIN PRIVATE KEY-----\n${"QUJD".repeat(400)}\n-----END PRIVATE KEY-----`;
    const out = redact(`${"x".repeat(900)}\n${pem}\n${"tail\n".repeat(500)}`, 1000) as string;
    expect(out).not.toContain("QUJD");
  });

  it("cleans a cut line longer than the slack whole", () => {
    const text = `${"x".repeat(999)}${key}${"z".repeat(10_000)}`;
    expect(redact(text, 1000) as string).not.toContain("sk-ant-a1");
  });
});

describe("redaction stays linear in its input", () => {
  // Each shape made every position of a long run scan to its end once: 40 KB took seconds, and a
  // call writing a minified bundle held the process for minutes. 100 KB of each now takes
  // milliseconds; the bound only catches a pattern gone quadratic again.
  const shapes = ["a", "a.", "a+", "--a", "a://b:", "h%3A%2F%2F", "mysql ", '"a":', "a1", "AKIA"];
  it.each(shapes)(
    "cleans 100 KB of %j in bounded time",
    (shape) => {
      const input = shape.repeat(Math.ceil(100_000 / shape.length));
      expect(redactText(input).length).toBeGreaterThan(0);
    },
    60_000,
  );
});
