import { describe, expect, it } from "vitest";
import { Conflict, NotFound, ValidationFailed } from "@/lib/domain/errors";
import { formErrors, NO_ROOM, NOT_QUEUED, queueing, UNREACHABLE } from "@/lib/site/forms";

/** What a page's "Run now" shows when the queueing fails (lib/site/forms.ts). */
describe("queueing", () => {
  it("gives the queued result back", async () => {
    await expect(queueing("a run", async () => 7)).resolves.toBe(7);
  });

  it("turns a failure that is not a refusal (the database…) into a refusal the form shows", async () => {
    const refused = await queueing("a run", () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:5432"))).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationFailed);
    expect(formErrors(refused)).toEqual({ non_field_errors: [NOT_QUEUED] });
  });

  it("lets the services' refusals through as they are", async () => {
    const gone = new NotFound();
    await expect(queueing("a run", () => Promise.reject(gone))).rejects.toBe(gone);
  });
});

describe("formErrors of a Conflict", () => {
  it("shows the pages' explanation where there is one, the API's detail otherwise", () => {
    expect(formErrors(new Conflict("In use.", "In use by 3 stations: A, B, C."))).toEqual({ form: ["In use by 3 stations: A, B, C."] });
    expect(formErrors(new Conflict("In use."))).toEqual({ form: ["In use."] });
  });
});

describe("formErrors of a full disk or an unreachable database", () => {
  it("says nothing was saved and keeps the form, instead of an error page", async () => {
    const full = new Error("database or disk is full", { cause: Object.assign(new Error("SqliteError"), { code: "SQLITE_FULL" }) });
    expect(formErrors(full)).toEqual({ form: [NO_ROOM] });
    expect(formErrors(Object.assign(new Error("could not extend file"), { code: "53100" }))).toEqual({ form: [NO_ROOM] });
    expect(formErrors(new Error("connect ECONNREFUSED 127.0.0.1:5432", { cause: { code: "ECONNREFUSED" } }))).toEqual({ form: [UNREACHABLE] });
    expect(formErrors(new Error("something else"))).toBeNull();
  });
});
