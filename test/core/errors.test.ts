import { describe, expect, it } from "vitest";
import { toToolError } from "../../src/core/errors.js";

const withCode = (code: string, path?: string) => Object.assign(new Error(`failed: ${code}`), { code, ...(path ? { path } : {}) });

describe("toToolError", () => {
  it("maps Node's errno codes to tackle's, with a message that says what to do", () => {
    const missing = toToolError(withCode("ENOENT", "/ws/a.txt"));
    expect(missing.code).toBe("FILE_NOT_FOUND");
    expect(missing.message).toContain("/ws/a.txt");
    expect(toToolError(withCode("EACCES")).code).toBe("PERMISSION_DENIED");
    expect(toToolError(withCode("ECONNREFUSED")).code).toBe("NETWORK_ERROR");
  });

  it.each(["constructor", "toString", "__proto__", "hasOwnProperty", "EWHATEVER"])(
    "takes any other code, %s among them, for a plain failure",
    (code) => {
      const err = toToolError(withCode(code));
      expect(err.code).toBe("EXECUTION_ERROR");
      expect(err.message).toBe(`failed: ${code}`);
    },
  );
});
