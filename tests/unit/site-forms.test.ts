import { describe, expect, it } from "vitest";
import { Conflict } from "@/lib/services/errors";
import { formErrors } from "@/lib/site/forms";

describe("formErrors of a Conflict", () => {
  it("shows the pages' explanation where there is one, the API's detail otherwise", () => {
    expect(formErrors(new Conflict("In use.", "In use by 3 stations: A, B, C."))).toEqual({ form: ["In use by 3 stations: A, B, C."] });
    expect(formErrors(new Conflict("In use."))).toEqual({ form: ["In use."] });
  });
});
