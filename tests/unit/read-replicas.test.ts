import { describe, expect, it } from "vitest";
import { parseSettings, SettingsError } from "@/lib/config";
import { readAfterCookie, readAfterFromCookies } from "@/lib/db/read-after.mjs";
import { connectionName, formatLsn, parseLsn } from "@/lib/db/replicas";

describe("WAL positions", () => {
  it("are read and written as PostgreSQL prints them, and compare in WAL order", () => {
    expect(parseLsn("16/B374D848")).toBe((0x16n << 32n) + 0xb374d848n);
    expect(formatLsn(parseLsn("16/B374D848")!)).toBe("16/B374D848");
    expect(formatLsn(parseLsn("0/0")!)).toBe("0/0");
    expect(parseLsn("1/0")! > parseLsn("0/FFFFFFFF")!).toBe(true);
    for (const bad of ["", "16", "16/", "/1", "G/1", "123456789/0", "1/2/3", null, 7]) expect(parseLsn(bad)).toBeNull();
  });
});

describe("the read-after cookie", () => {
  it("is read from a Cookie header among others, and only with a WAL position", () => {
    expect(readAfterFromCookies("a=1; enhydris_read_after=1/2AB; b=2")).toBe("1/2AB");
    expect(readAfterFromCookies("enhydris_read_after=1/2ab")).toBe("1/2AB");
    expect(readAfterFromCookies(["a=1", "enhydris_read_after=0/10"])).toBe("0/10");
    for (const none of [undefined, "", "a=1", "enhydris_read_after=", "enhydris_read_after=x/1", "xenhydris_read_after=1/1", "enhydris_read_after=1/1 x"]) {
      expect(readAfterFromCookies(none), String(none)).toBeNull();
    }
  });

  it("is set for the lag limit plus a margin, HttpOnly, for the whole site", () => {
    expect(readAfterCookie("1/2AB", 15)).toBe("enhydris_read_after=1/2AB; Path=/; Max-Age=15; HttpOnly; SameSite=Lax");
    expect(readAfterCookie("1/2AB", 5.5)).toBe("enhydris_read_after=1/2AB; Path=/; Max-Age=6; HttpOnly; SameSite=Lax");
  });
});

describe("replica settings", () => {
  it("take comma-separated postgres URLs and a lag limit in seconds", () => {
    const s = parseSettings({ DATABASE_REPLICA_URLS: " postgres://a:b@r1:5432/db , postgresql://a:b@r2/db,", ENHYDRIS_REPLICA_MAX_LAG: "2.5" });
    expect(s.databaseReplicaUrls).toEqual(["postgres://a:b@r1:5432/db", "postgresql://a:b@r2/db"]);
    expect(s.replicaMaxLag).toBe(2.5);
    expect(parseSettings({})).toMatchObject({ databaseReplicaUrls: [], replicaMaxLag: 10 });
  });

  it("refuse anything else, naming the variable", () => {
    expect(() => parseSettings({ DATABASE_REPLICA_URLS: "postgres://r1/db,file:./x.db" })).toThrow(SettingsError);
    expect(() => parseSettings({ DATABASE_REPLICA_URLS: "mysql://r1/db" })).toThrow(/^Invalid setting DATABASE_REPLICA_URLS="mysql:\/\/r1\/db": expected comma-separated postgres:\/\/… URLs\.$/);
    expect(() => parseSettings({ ENHYDRIS_REPLICA_MAX_LAG: "-1" })).toThrow(/ENHYDRIS_REPLICA_MAX_LAG/);
    expect(() => parseSettings({ ENHYDRIS_REPLICA_MAX_LAG: "soon" })).toThrow(/ENHYDRIS_REPLICA_MAX_LAG/);
  });

  it("name a replica by host, port and database, never by its credentials", () => {
    expect(connectionName("postgres://enhydris:secret@10.0.0.21:5433/enhydris")).toBe("10.0.0.21:5433/enhydris");
    expect(connectionName("postgres://u:p@db.internal/enhydris")).toBe("db.internal:5432/enhydris");
  });
});
