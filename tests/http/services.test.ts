import { beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/auth/permissions";
import { type AuthUser, findAuthUser } from "@/lib/auth/users";
import { resolveTimeZone } from "@/lib/formats/timezone";
import { Conflict, NotFound, PermissionDenied, ValidationFailed } from "@/lib/domain/errors";
import { deleteLookup } from "@/lib/lookups/writes";
import { readableSeries } from "@/lib/series/context";
import { workbenchView } from "@/lib/series/workbench";
import { createSeries } from "@/lib/series/writes";
import { updateStation } from "@/lib/stations/writes";
import { stationJsonById } from "@/lib/stations/stations";
import { uploadRecords } from "@/lib/series/upload";
import { updateProfile, USERNAME_MESSAGE, USERNAME_TAKEN } from "@/lib/accounts/users";
import * as f from "@/tests/support/fixtures";
import { inProcessDatabase } from "@/tests/support/server";

/**
 * The services called as a job, a script or a page calls them: in process, with no request.
 * They check permissions, validate what needs the database, write in their own transactions and
 * raise domain errors (docs/decisions/0008).
 */
inProcessDatabase();
let other: AuthUser;
let maintainer: AuthUser;
let viewer: AuthUser;
let superuser: AuthUser;
let sid: number;
let gid: number;
let tid: number;
let variableId: number;

const actor = async (user: f.TestUser) => (await findAuthUser(user.id))!;

/** The error a promise is rejected with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("the promise was fulfilled");
}

beforeAll(async () => {
  other = await actor(await f.user());
  maintainer = await actor(await f.user());
  viewer = await actor(await f.user());
  superuser = await actor(await f.user({ superuser: true }));
  variableId = await f.variable();
  sid = await f.station({ maintainers: [maintainer.id], dataViewers: [viewer.id] });
  gid = await f.group(sid, { variableId });
  tid = await f.series(gid, { type: "Initial", publiclyAvailable: false });
}, 60_000);

describe("a station change", () => {
  it("is refused to an anonymous actor and to a user who is not an editor, before the values are asked for", async () => {
    let asked = 0;
    const values = async () => {
      asked++;
      return { name: "never" };
    };
    const anonymous = await rejection(updateStation(null, sid, values));
    expect(anonymous).toBeInstanceOf(PermissionDenied);
    expect((anonymous as PermissionDenied).anonymous).toBe(true);
    const stranger = await rejection(updateStation(other, sid, values));
    expect(stranger).toBeInstanceOf(PermissionDenied);
    expect((stranger as PermissionDenied).anonymous).toBe(false);
    expect(asked).toBe(0);
  });

  it("of a missing station is NotFound for everyone, anonymous included", async () => {
    for (const who of [null, other, superuser] as Actor[]) {
      expect(await rejection(updateStation(who, 2_000_000_000, { name: "x" }))).toBeInstanceOf(NotFound);
    }
  });

  it("by a maintainer is written with the values given directly", async () => {
    await updateStation(maintainer, sid, { name: "Renamed by a job" });
    expect((await stationJsonById(sid))!.name).toBe("Renamed by a job");
  });
});

describe("a records upload", () => {
  const zone = resolveTimeZone("Etc/GMT-2")!;

  it("stores the records of an editor and refuses one that does not append", async () => {
    const path = { seriesId: tid };
    expect(await uploadRecords(maintainer, path, { text: "2020-01-01 00:00,1\n2020-01-01 00:10,2\n", zone, mode: "append", dryRun: false }))
      .toEqual({ stored: 2 });
    const refused = await rejection(uploadRecords(maintainer, path, { text: "2019-12-31 23:50,0\n", zone, mode: "append", dryRun: false }));
    expect(refused).toBeInstanceOf(ValidationFailed);
    expect(Object.keys((refused as ValidationFailed).fields)).toEqual(["timeseries_records"]);
    expect(await rejection(uploadRecords(other, path, { text: "2021-01-01 00:00,1\n", zone, mode: "append", dryRun: false })))
      .toBeInstanceOf(PermissionDenied);
  });

  it("of a dry run stores nothing and summarizes", async () => {
    const outcome = await uploadRecords(superuser, { seriesId: tid }, { text: "2022-01-01 00:00,5\n", zone, mode: "append", dryRun: true });
    expect(outcome).toHaveProperty("dryRun.count", 1);
    expect((await readableSeries(superuser, { seriesId: tid })).recordCount).toBe(2);
  });
});

describe("the private-data rule", () => {
  it("lets data readers read a private series and refuses the others", async () => {
    expect((await readableSeries(viewer, { seriesId: tid })).id).toBe(tid);
    const anonymous = await rejection(readableSeries(null, { seriesId: tid }));
    expect((anonymous as PermissionDenied).anonymous).toBe(true);
    expect((await rejection(readableSeries(other, { seriesId: tid })) as PermissionDenied).anonymous).toBe(false);
    expect(await rejection(readableSeries(viewer, { seriesId: tid, stationId: sid + 1 }))).toBeInstanceOf(NotFound);
  });
});

describe("domain validation", () => {
  it("refuses a second Initial series of a group as an object-level error", async () => {
    const error = await rejection(createSeries(maintainer, sid, gid, { type: 1, timeStep: "", name: "", publiclyAvailable: true }));
    expect(error).toBeInstanceOf(ValidationFailed);
    expect((error as ValidationFailed).fields).toEqual({
      non_field_errors: [`A time series with timeseries_group_id=${gid} and type=Initial already exists`],
    });
  });

  it("refuses deleting a variable in use (Conflict) to a superuser, and any lookup write to others", async () => {
    const inUse = await rejection(deleteLookup(superuser, "variables", variableId));
    expect(inUse).toBeInstanceOf(Conflict);
    expect((inUse as Conflict).detail).toBe("This object cannot be deleted because other objects refer to it.");
    expect(await rejection(deleteLookup(maintainer, "variables", variableId))).toBeInstanceOf(PermissionDenied);
    expect(await rejection(deleteLookup(superuser, "variables", 2_000_000_000))).toBeInstanceOf(NotFound);
  });

  it("keeps the username rules of the profile for every caller", async () => {
    const invalid = await rejection(updateProfile(other, { username: "no spaces" }));
    expect((invalid as ValidationFailed).fields).toEqual({ username: [USERNAME_MESSAGE] });
    const taken = await rejection(updateProfile(other, { username: maintainer.username }));
    expect((taken as ValidationFailed).fields).toEqual({ username: [USERNAME_TAKEN] });
    expect(await rejection(updateProfile(null, { firstName: "X" }))).toBeInstanceOf(PermissionDenied);
  });
});

describe("the workbench's address (lib/series/workbench.ts, corrections.md §3)", () => {
  it("gives the range it names and the compared series the user may read, leaving out the others", async () => {
    const ownGroup = await f.group(sid, { variableId });
    const own = await f.series(ownGroup, { type: "Initial", publiclyAvailable: true, name: "Gauge" });
    const privateOne = await readableSeries(superuser, { seriesId: tid });
    const query = { start: "2025-01-01T00:00:00Z", end: "2025-02-01T02:00:00+02:00", compare: `${tid},999999,${own},x,${tid}` };
    expect(await workbenchView(viewer, own, query)).toEqual({
      range: { start: Date.UTC(2025, 0, 1) / 1000, end: Date.UTC(2025, 1, 1) / 1000 },
      compared: [{ stationId: sid, groupId: gid, seriesId: tid, label: `${privateOne.station.name} · series ${tid}`, unit: privateOne.unit.symbol, step: null }],
    });
    // Not a data viewer: the private series is left out, and nothing says it exists.
    expect((await workbenchView(other, own, query)).compared).toEqual([]);
    expect((await workbenchView(null, own, query)).compared).toEqual([]);
  });

  it("ignores a range that does not parse or runs backwards, and compares five series at most", async () => {
    const many: number[] = [];
    for (let i = 0; i < 7; i++) many.push(await f.series(await f.group(sid, { variableId }), { type: "Initial", publiclyAvailable: true }));
    const view = await workbenchView(superuser, tid, { start: "2025-02-01T00:00:00Z", end: "2025-01-01T00:00:00Z", compare: many.join(",") });
    expect(view.range).toBeNull();
    expect(view.compared.map((c) => c.seriesId)).toEqual(many.slice(0, 5));
    for (const start of ["yesterday", "2025-01-01", "2025-01-01T00:00:00", "1735689600"]) {
      expect((await workbenchView(superuser, tid, { start, end: "2025-03-01T00:00:00Z" })).range, start).toBeNull();
    }
    expect((await workbenchView(superuser, tid, { compare: ["", ""] })).compared).toEqual([]);
  });
});
