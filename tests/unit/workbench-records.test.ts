import { describe, expect, it } from "vitest";
import { epoch, parseRecords } from "@/components/manage/workbench-requests";

/** Every record read, as objects. */
const parseCsv = (text: string) => {
  const columns = parseRecords(text);
  return columns.slice(0, columns.length);
};

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

  it("reads each value bit for bit as Number() does: every number of decimals, signs, exponents, long digits", () => {
    const texts: string[] = ["0", "-0", "+1.5", "0.1", "0.30000000000000004", "1e3", "-2.5E-3", "123456789012345", "1234567890123456", "9007199254740993",
      "0.000001", ".5", "5.", "-.25", "99999999999999.9", "1.7976931348623157e308", "5e-324"];
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let k = 0; k < 20_000; k++) {
      const decimals = k % 9;
      texts.push((random() * 10 ** (k % 12) * (random() < 0.3 ? -1 : 1)).toFixed(decimals));
    }
    const text = texts.map((v, i) => `${new Date((1262304000 + i * 600) * 1000).toISOString().slice(0, 16).replace("T", " ")},${v},`).join("\n");
    const read = parseRecords(text);
    expect(read.length).toBe(texts.length);
    texts.forEach((v, i) => expect(Object.is(read.v[i], Number(v)), `${v} read as ${read.v[i]}`).toBe(true));
  });

  it("finds a time's record and a range's records by their times", () => {
    const text = ["2010-01-01 00:00,1,", "2010-01-01 00:10,,F", "2010-01-01 00:20,3,", "2010-01-01 00:30,4,G"].join("\n");
    const read = parseRecords(text);
    const at = (h: string) => epoch(`2010-01-01 ${h}`);
    expect(read.find(at("00:10"))).toEqual({ t: at("00:10"), v: null, text: "", flags: "F" });
    expect(read.find(at("00:15"))).toBeUndefined();
    expect(read.between(at("00:10"), at("00:20"))).toEqual([1, 3]);
    expect(read.between(at("00:05"), at("00:25"))).toEqual([1, 3]);
    expect(read.between(at("00:40"), at("01:00"))).toEqual([4, 4]);
    expect([...read.flagged]).toEqual([1, 3]);
    expect(Number.isNaN(read.v[1])).toBe(true);
  });

  it("epoch reads the API's form and ISO 8601 with a zone", () => {
    expect(epoch("2010-01-01 00:00")).toBe(1262304000);
    expect(epoch("2010-01-01T02:00+02:00")).toBe(1262304000);
    expect(epoch("2010-01-01T00:00:00Z")).toBe(1262304000);
  });
});
