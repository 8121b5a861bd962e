/** A time series group's title on pages: its name, else its variable, else "Group 12" in the page's language (the API's stays English). */
import { describe, expect, it } from "vitest";
import { groupTitleIn } from "@/lib/site/group-title";
import { groupTitle } from "@/lib/site/names";

describe("groupTitle", () => {
  it("names a group by its name, else its variable, else its number in the page's language", () => {
    expect(groupTitleIn("el", { id: 12, name: "Βροχή", variable: "Rain" })).toBe("Βροχή");
    expect(groupTitleIn("el", { id: 12, name: "", variable: "Βροχόπτωση" })).toBe("Βροχόπτωση");
    expect(groupTitleIn("el", { id: 12, name: "", variable: "" })).toBe("Ομάδα 12");
    expect(groupTitleIn("en", { id: 12, name: "", variable: null })).toBe("Group 12");
    expect(groupTitle({ id: 12, name: "" })).toBe("Group 12");
  });
});
