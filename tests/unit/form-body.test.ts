import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseFormBytes } from "@/lib/http/body";

const parse = (text: string) => parseFormBytes(Buffer.from(text, "utf8"));

describe("parseFormBytes", () => {
  it("decodes like URLSearchParams", () => {
    for (const body of ["a=1&b=2", "a=%20x+y%2B&a=2", "=x&y=&z", "k=%E2%82%AC%zz%4", "&&a=1&&", "x=%C3", "π=π", "a=b=c", ""]) {
      expect(parse(body)).toEqual([...new URLSearchParams(body)]);
    }
  });

  it("agrees with URLSearchParams on arbitrary text", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme-composite" }), (s) => {
      expect(parse(s)).toEqual([...new URLSearchParams(s)]);
    }), { numRuns: 500 });
    fc.assert(fc.property(fc.array(fc.tuple(fc.string(), fc.string())), (pairs) => {
      const body = new URLSearchParams(pairs).toString();
      expect(parse(body)).toEqual([...new URLSearchParams(body)]);
    }), { numRuns: 500 });
  });
});
