import { expect, it } from "vitest";
import { suiteServer } from "@/tests/support/suite";

/**
 * A new instance without stations (walk-through of 2026-11-26): the home page says that there
 * are none yet, not that "No stations match (all stations)"; a search still says that nothing
 * matches it. The server's database is its own and empty.
 */
const s = suiteServer({ env: { ENHYDRIS_DEMO_DATA: "false" } });

const text = (html: string) => html.replace(/<!-- -->/g, "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");

it("the home page of a site without stations says there are none yet", async () => {
  const home = await s.http.get("/");
  expect(home.status).toBe(200);
  expect(text(home.text)).toContain("There are no stations yet.");
  expect(text(home.text)).not.toContain("(all stations)");
  const search = await s.http.get("/?q=arta");
  expect(search.status).toBe(200);
  expect(text(search.text)).toContain("No stations match the search arta");
});

it("the home page names the terms it ignored because their search type is unknown", async () => {
  const typo = text((await s.http.get(`/?${new URLSearchParams({ q: "varible:rain arta foo:bar varible:rain" })}`)).text);
  expect(typo).toContain("No stations match the search varible:rain arta foo:bar varible:rain");
  expect(typo).toContain("Ignored: varible:rain , foo:bar have no known search type before the colon");
  const one = text((await s.http.get(`/?${new URLSearchParams({ q: "http://example.org" })}`)).text);
  expect(one).toContain("Ignored: http://example.org has no known search type");
  for (const q of ["variable:rain owner:x type:y in:z bbox:1,2,3,4 ts_only: ts_has_years:2020 arta", ""]) {
    expect(text((await s.http.get(`/?${new URLSearchParams({ q })}`)).text), q).not.toContain("Ignored:");
  }
});
