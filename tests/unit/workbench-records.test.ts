import { describe, expect, it } from "vitest";
import { epoch, parseCsv } from "@/components/manage/workbench-requests";

/** What each line means, read the plain way: split on commas, each time through Date.parse. */
function naive(text: string) {
  return text.split(/\r?\n/).filter(Boolean).map((line) => {
    const [ts, value = "", flags = ""] = line.split(",");
    return { t: Date.parse(ts.replace(" ", "T") + (/[Zz]$/.test(ts) ? "" : "Z")) / 1000, v: value === "" ? null : Number(value), text: value, flags };
  });
}

describe("the workbench's reading of data/'s CSV (UTC)", () => {
  it("reads every line as the plain reading does: CRLF or LF, empty values, flags, blank lines, other time forms", () => {
    const text = "2010-01-01 00:00,1.5,A B\r\n2010-01-01 00:10,,\r\n2010-12-31 23:50,-3,SUSPECT\n\n2011-02-28T06:07Z,7.25,\n2012-02-29 12:30,0.00,X\n2012-03-01 00:00";
    expect(parseCsv(text)).toEqual(naive(text));
    expect(parseCsv(text)).toHaveLength(6);
  });

  it("works out each date once and the time of day from its digits: a year of 10-minute records, every one right", () => {
    const lines: string[] = [];
    for (let t = Date.UTC(2011, 11, 31) / 1000; t < Date.UTC(2013, 0, 2) / 1000; t += 600) {
      const iso = new Date(t * 1000).toISOString();
      lines.push(`${iso.slice(0, 10)} ${iso.slice(11, 16)},${(t % 997) / 10},${t % 7 === 0 ? "F" : ""}`);
    }
    const text = lines.join("\r\n") + "\r\n";
    const read = parseCsv(text);
    expect(read).toEqual(naive(text));
    expect(read.every((r, i) => i === 0 || r.t - read[i - 1].t === 600)).toBe(true);
  });

  it("epoch reads the API's form and ISO 8601 with a zone", () => {
    expect(epoch("2010-01-01 00:00")).toBe(1262304000);
    expect(epoch("2010-01-01T02:00+02:00")).toBe(1262304000);
    expect(epoch("2010-01-01T00:00:00Z")).toBe(1262304000);
  });
});
