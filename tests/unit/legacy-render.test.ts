/** Content negotiation, the XML/CSV/HTML renderers and the JSONP name rule of the legacy interface (legacy.md §3, §6.3). */
import { describe, expect, it } from "vitest";
import { isCallbackName, jsonOrJsonp } from "@/lib/legacy/jsonp";
import { negotiate, negotiateAccept, parseAccept } from "@/lib/legacy/negotiate";
import { renderCsv, renderHtml, renderXml, valueText, xmlText } from "@/lib/legacy/render";
import { ApiError } from "@/lib/http/errors";

describe("Accept (§3.1)", () => {
  it.each([
    [null, "json"],
    ["", "json"],
    ["   ", "json"],
    ["nonsense", "json"],
    ["*/*", "json"],
    ["application/json", "json"],
    ["application/xml", "xml"],
    ["text/xml", "xml"],
    ["text/csv", "csv"],
    ["text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "html"],
    ["text/*", "html"],
    ["application/json;q=0.5, text/csv", "csv"],
    ["text/csv;q=0, */*", "json"],
    ["TEXT/CSV", "csv"],
    ["text/csv; charset=utf-8; q=0.7, application/json; q=0.6", "csv"],
    ["text/*;q=0.5, text/csv;q=0.1", "html"],
    ["text/*;q=0.5, text/html;q=0", "xml"],
    ["*/*;q=0.1, application/xml;q=0.1", "json"],
  ])("%j → %s", (accept, representation) => {
    expect(negotiateAccept(accept)?.representation).toBe(representation);
  });

  it("the content types", () => {
    expect(negotiateAccept("text/xml")!.contentType).toBe("text/xml; charset=utf-8");
    expect(negotiateAccept("application/xml")!.contentType).toBe("application/xml; charset=utf-8");
    expect(negotiateAccept("text/xml, application/xml")!.contentType).toBe("application/xml; charset=utf-8");
  });

  it("nothing acceptable → null (406)", () => {
    expect(negotiateAccept("image/png")).toBeNull();
    expect(negotiateAccept("*/*;q=0")).toBeNull();
  });

  it("ignores unparsable ranges and parameters other than q", () => {
    expect(parseAccept("foo, text/csv;level=1;q=0.5, */json, a/b;q=x")).toEqual([{ type: "text", subtype: "csv", q: 0.5 }]);
  });
});

describe("?format= (§3.1)", () => {
  const url = (q: string) => new URL(`http://x/api/Variable/${q}`);

  it("wins over Accept; api is html; empty is absent", () => {
    expect(negotiate(url("?format=csv"), "image/png").representation).toBe("csv");
    expect(negotiate(url("?format=api"), null).representation).toBe("html");
    expect(negotiate(url("?format=xml"), null).contentType).toBe("application/xml; charset=utf-8");
    expect(negotiate(url("?format="), "text/csv").representation).toBe("csv");
  });

  it("an unknown value → 400; no acceptable type → 406", () => {
    const attempt = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return [(e as ApiError).status, (e as ApiError).body];
      }
      return null;
    };
    expect(attempt(() => negotiate(url("?format=yaml"), null))).toEqual([400, { format: ['"yaml" is not a valid choice.'] }]);
    expect(attempt(() => negotiate(url("?format=JSON"), null))).toEqual([400, { format: ['"JSON" is not a valid choice.'] }]);
    expect(attempt(() => negotiate(url(""), "image/png"))).toEqual([406, { detail: "Could not satisfy the request Accept header." }]);
  });
});

describe("renderers (§3.2–3.5)", () => {
  const fields = ["id", "name", "ids", "flag", "none", "x"];
  const obj = { id: 1, name: 'a,"b"\n<c> & d', ids: [5, 7], flag: true, none: null, x: 21.06071 };

  it("value text", () => {
    expect([valueText(219), valueText(21.06071), valueText(true), valueText(null), valueText([5, 7]), valueText([]), valueText("s")])
      .toEqual(["219", "21.06071", "true", "", "5 7", "", "s"]);
  });

  it("XML: declaration, fields in order, list items, empty elements, escapes, forbidden characters dropped", () => {
    expect(renderXml(obj, fields)).toBe('<?xml version="1.0" encoding="utf-8"?>\n' +
      '<root><id>1</id><name>a,"b"\n&lt;c&gt; &amp; d</name><ids><list-item>5</list-item><list-item>7</list-item></ids><flag>true</flag><none></none><x>21.06071</x></root>');
    expect(renderXml([], fields)).toBe('<?xml version="1.0" encoding="utf-8"?>\n<root></root>');
    expect(renderXml([{ id: 1, name: "", ids: [] }], ["id", "name", "ids"])).toBe('<?xml version="1.0" encoding="utf-8"?>\n<root><list-item><id>1</id><name></name><ids></ids></list-item></root>');
    expect(xmlText("a\u0000b\u0008c\td\ne\rf\u000bg\u001fh\ufffe\ud800i😀")).toBe("abc\td\ne\rfgh" + "i😀");
  });

  it("CSV: header, RFC 4180 quoting, CR LF", () => {
    expect(renderCsv([obj], fields)).toBe('id,name,ids,flag,none,x\r\n1,"a,""b""\n<c> & d",5 7,true,,21.06071\r\n');
    expect(renderCsv([], ["id", "descr"])).toBe("id,descr\r\n");
    expect(renderCsv({ id: 2, descr: "x" }, ["id", "descr"])).toBe("id,descr\r\n2,x\r\n");
  });

  it("HTML: a complete page with escaped values", () => {
    const page = renderHtml("Station list", [{ ...obj, name: `<script>alert('x')</script>` }], fields);
    expect(page).toMatch(/^<!DOCTYPE html>/);
    expect(page).toContain("<title>Station list</title>");
    expect(page).toContain("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
    expect(page).not.toContain("<script>");
    expect(renderHtml("Variable 1", { id: 1, descr: "a & b" }, ["id", "descr"])).toContain('<tr><th scope="row">descr</th><td>a &amp; b</td></tr>');
  });
});

describe("JSONP names (§6.3)", () => {
  it.each([["cb", true], ["$", true], ["_a.b$.c1", true], ["My.ns.cb", true], ["alert(1)", false], ["1x", false], ["a..b", false], ["a.", false],
    ["", false], ["a-b", false], ["a".repeat(100), true], ["a".repeat(101), false], ["ünï", false]])("%j → %s", (name, valid) => {
    expect(isCallbackName(name)).toBe(valid);
  });

  it("wraps the JSON with nosniff", () => {
    expect(jsonOrJsonp("[1]", "cb")).toEqual({ body: "cb([1])", headers: { "Content-Type": "application/javascript; charset=utf-8", "X-Content-Type-Options": "nosniff" } });
    expect(jsonOrJsonp("[1]", null)).toEqual({ body: "[1]", headers: { "Content-Type": "application/json" } });
  });
});
