import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonTooDeepAt, MAX_JSON_DEPTH, parseBody } from "@/lib/http/body";
import { ApiError } from "@/lib/http/errors";
import { INVALID_JSON, jsonValue } from "@/lib/http/nested-fields";

/** The nesting of arrays and objects of a JSON value: 0 for a scalar. */
function depthOf(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  const members = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...members.map(depthOf));
}

const nested = (levels: number) => `{"email":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;
const post = (body: string, type = "application/json") =>
  parseBody(new Request("http://localhost/api/auth/login/", { method: "POST", headers: { "Content-Type": type }, body }), 10_000_000);

async function refusal(body: string): Promise<ApiError> {
  const error = await post(body).then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe("the nesting limit of JSON from clients", () => {
  it("refuses a body nested deeper than the limit before parsing it, as a JSON parse error", async () => {
    const e = await refusal(nested(200_000));
    expect(e.status).toBe(400);
    // "{" is level 1 at position 0, "{\"email\":" takes 9 characters: level 65 opens at 9 + 63.
    expect(e.body).toEqual({ detail: `JSON parse error - Arrays and objects nested too deeply (more than ${MAX_JSON_DEPTH} levels) at position 72` });
    expect((await refusal(nested(MAX_JSON_DEPTH + 1))).status).toBe(400);
    // Unclosed, or closed by the wrong brackets: the depth is what counts.
    expect(((await refusal(`{"a":${"[{".repeat(100)}`)).body as { detail: string }).detail).toMatch(/nested too deeply/);
  });

  it("reads a body at the limit, and brackets inside strings never count", async () => {
    const input = await post(nested(MAX_JSON_DEPTH));
    expect(depthOf(input.get("email"))).toBe(MAX_JSON_DEPTH - 1);
    const text = `${"[".repeat(1000)}\\"\\\\"${"{".repeat(1000)}`;
    const strings = await post(JSON.stringify({ a: text, [text]: [[["\\"]]] }));
    expect(strings.get("a")).toBe(text);
  });

  it("agrees with the depth of any JSON value (strings with quotes, backslashes and brackets included)", () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 8 }), fc.boolean(), (v, max, indent) => {
      const text = JSON.stringify(v, null, indent ? 1 : 0);
      expect(jsonTooDeepAt(text, max) >= 0).toBe(depthOf(v) > max);
    }), { numRuns: 2000 });
  });

  it("refuses JSON text in a field (a form's nested value) nested too deeply as invalid", () => {
    expect(jsonValue(`[${nested(MAX_JSON_DEPTH)}]`)).toEqual({ ok: false, errors: [INVALID_JSON] });
    expect(jsonValue(nested(MAX_JSON_DEPTH))).toMatchObject({ ok: true });
  });
});
