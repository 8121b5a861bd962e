import { describe, expect, it } from "vitest";
import { ApiError, httpError } from "@/lib/http/errors";
import { Conflict, ErrorCollector, NotFound, PermissionDenied, Throttled, ValidationFailed } from "@/lib/domain/errors";

/** How the API answers the domain's errors (api.md §1.6, §15.3; docs/decisions/0008). */
const answer = (error: unknown, challenge: "Token" | "Basic" = "Token") => {
  const e = httpError(error, challenge);
  return e && { status: e.status, body: e.body, headers: e.headers };
};

describe("httpError", () => {
  it("answers field errors with 400 and the fields, object-level ones under non_field_errors", () => {
    expect(answer(new ValidationFailed({ name: ["This field is required."], code: ["A", "B"] })))
      .toEqual({ status: 400, body: { name: ["This field is required."], code: ["A", "B"] }, headers: {} });
    expect(answer(ValidationFailed.nonField("Clash."))).toEqual({ status: 400, body: { non_field_errors: ["Clash."] }, headers: {} });
  });

  it("asks an anonymous actor to authenticate with the route's challenge, and refuses a known one", () => {
    const detail = "Authentication credentials were not provided.";
    expect(answer(new PermissionDenied(true))).toEqual({ status: 401, body: { detail }, headers: { "WWW-Authenticate": "Token" } });
    expect(answer(new PermissionDenied(true), "Basic")).toEqual({ status: 401, body: { detail }, headers: { "WWW-Authenticate": 'Basic realm="api"' } });
    expect(answer(new PermissionDenied(false))).toEqual({ status: 403, body: { detail: "You do not have permission to perform this action." }, headers: {} });
    expect(answer(new PermissionDenied(false, "Only the owner may do this."))).toEqual({ status: 403, body: { detail: "Only the owner may do this." }, headers: {} });
  });

  it("answers NotFound with 404, Conflict with 409 and Throttled with 429 and Retry-After", () => {
    expect(answer(new NotFound())).toEqual({ status: 404, body: { detail: "Not found." }, headers: {} });
    expect(answer(new Conflict("In use."))).toEqual({ status: 409, body: { detail: "In use." }, headers: {} });
    expect(answer(new Throttled(42))).toEqual({
      status: 429, body: { detail: "Request was throttled. Expected available in 42 seconds." }, headers: { "Retry-After": "42" },
    });
  });

  it("passes HTTP errors through and leaves other errors to the caller", () => {
    const http = new ApiError(415, { detail: "Unsupported media type \"text/plain\" in request." });
    expect(httpError(http, "Token")).toBe(http);
    expect(httpError(new Error("boom"), "Token")).toBeNull();
  });
});

describe("ErrorCollector", () => {
  it("collects messages in the order found and throws them as one ValidationFailed", () => {
    const errors = new ErrorCollector();
    errors.throwIfAny();
    errors.add("b", "first");
    errors.add("a", ["second", "third"]);
    errors.add("b", "fourth");
    let thrown: unknown;
    try {
      errors.throwIfAny();
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ValidationFailed);
    expect(JSON.stringify((thrown as ValidationFailed).fields)).toBe('{"b":["first","fourth"],"a":["second","third"]}');
  });
});
