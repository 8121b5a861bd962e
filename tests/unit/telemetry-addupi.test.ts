import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeType, withSession, type TelemetrySession } from "@/lib/telemetry/driver";
import { formatNaive } from "@/lib/telemetry/readings";
import { addupi } from "@/lib/telemetry/types/addupi";
import { startFakeAddupi, type AddupiReading, type FakeAddupi } from "@/tests/support/fake-vendors/addupi";
import { describeCommonFaults, driverContext, epoch, telemetryConfig, telemetryFailure } from "@/tests/support/telemetry-drivers";

function configFor(vendor: FakeAddupi, extra = {}) {
  return telemetryConfig({ deviceLocator: vendor.url, username: "alice", password: "topsecretpassword", remoteStationId: "1852", ...extra });
}

describe("addupi: metadata", () => {
  it("describes itself as the reference's wizard does", () => {
    expect(describeType(addupi)).toEqual({
      id: "addupi",
      name: "Adcon addUPI",
      lists_stations: true,
      fields: {
        device_locator: {
          label: "Gateway or addVANTAGE server URL",
          help: 'Use "https://hostname:port" or "https://hostname". You can use http instead of https, but it is not recommended.',
          required: true,
        },
        username: { label: "Username", help: "", required: true },
        password: { label: "Password", help: "", required: true },
        remote_station_id: { label: "Remote station", help: "The station as the vendor's system identifies it; the wizard lists them.", required: true },
      },
    });
    expect(addupi.usesDataTimezone).toBe(false);
  });

  it("validates its configuration", () => {
    expect(addupi.validate(telemetryConfig({ deviceLocator: "https://gw.example.org:8080", username: "a", password: "b" }))).toEqual({});
    expect(addupi.validate(telemetryConfig({ deviceLocator: "gw.example.org" }))).toEqual({
      username: ["This field is required."],
      password: ["This field is required."],
      device_locator: ["Enter a valid URL."],
    });
  });

  it("says that a device locator that is not a URL cannot be used", async () => {
    const error = await telemetryFailure(addupi.open(telemetryConfig({ deviceLocator: "not a url", password: "secretpw" }), driverContext()).connect());
    expect(error.message).toBe('the device_locator "not a url" is not a valid URL');
  });
});

describe("addupi: against its fake", () => {
  let vendor: FakeAddupi;
  let readings: Record<string, AddupiReading[]>;
  let host: string;
  beforeEach(async () => {
    readings = {};
    vendor = await startFakeAddupi({ readings });
    host = vendor.url.slice(7);
  });
  afterEach(() => vendor.close());

  it("logs in, sends the session id with every request, and logs out", async () => {
    const stations = await withSession(addupi, configFor(vendor), driverContext(), (s) => s.listStations());
    expect(stations).toEqual([{ id: "1852", name: "Hobbiton" }, { id: "2581", name: "Rivendell" }]);
    const [login, getconfig, logout] = vendor.requests;
    expect(Object.fromEntries(login.query)).toEqual({ function: "login", user: "alice", passwd: "topsecretpassword" });
    expect(Object.fromEntries(getconfig.query)).toEqual({ function: "getconfig", "session-id": "session1x" });
    expect(Object.fromEntries(logout.query)).toEqual({ function: "logout", "session-id": "session1x" });
    expect(vendor.sessions.size).toBe(0);
  });

  it("does not log out without a session", async () => {
    const session = addupi.open(configFor(vendor), driverContext());
    await session.disconnect();
    expect(vendor.requests).toHaveLength(0);
  });

  it("URL-encodes the user name and password", async () => {
    await vendor.close();
    vendor = await startFakeAddupi({ user: "bob smith", password: "p&ss=wörd#1" });
    await withSession(addupi, configFor(vendor, { username: "bob smith", password: "p&ss=wörd#1" }), driverContext(), async () => undefined);
    expect(vendor.requests[0].query.get("passwd")).toBe("p&ss=wörd#1");
  });

  it("says what the gateway says about a wrong password", async () => {
    const error = await telemetryFailure(withSession(addupi, configFor(vendor, { password: "wrongpassword" }), driverContext(), async () => undefined));
    expect(error.message).toBe(`${host} says: Invalid username or password`);
  });

  it("shows the subclass of a device", async () => {
    await vendor.close();
    vendor = await startFakeAddupi({ devices: [{ id: "1852", name: "Hobbiton", subclass: "station", sensors: [] }] });
    expect(await withSession(addupi, configFor(vendor), driverContext(), (s) => s.listStations())).toEqual([{ id: "1852", name: "Hobbiton [station]" }]);
  });

  it("lists the sensors below the station's node, in the encoding the XML declares", async () => {
    expect(await withSession(addupi, configFor(vendor), driverContext(), (s) => s.listSensors())).toEqual([
      { id: "42a", name: "temperature" }, { id: "43b", name: "humidity" },
    ]);
    expect(await withSession(addupi, configFor(vendor, { remoteStationId: "2581" }), driverContext(), (s) => s.listSensors())).toEqual([
      { id: "51", name: "Bärenhöhle rain" },
    ]);
    const error = await telemetryFailure(withSession(addupi, configFor(vendor, { remoteStationId: "999" }), driverContext(), (s) => s.listSensors()));
    expect(error.message).toBe(`the configuration of ${host} has no station with id "999"`);
  });

  it("asks the data after the last record, and reads relative timestamps (the reference's request)", async () => {
    readings["8231"] = [{ t: 1655193600, value: "1.41" }, { t: 1655194200, value: "1.42" }, { t: 1655194800, value: "1.43" }];
    const batch = await withSession(addupi, configFor(vendor), driverContext(), (s) => s.readingsAfter("8231", epoch("2022-06-14T08:00:00Z")));
    expect(vendor.dataRequests()).toEqual([{ id: "8231", date: "1655193600", slots: "10000", session: "session1x" }]);
    expect(vendor.requests.find((r) => r.query.get("function") === "getdata")!.query.get("df")).toBe("time_t");
    expect(batch.clock).toBe("utc");
    expect(batch.readings.map((r) => [formatNaive(r.time), r.value, r.flags])).toEqual([["2022-06-14T08:10:00", 1.42, ""], ["2022-06-14T08:20:00", 1.43, ""]]);
  });

  it("starts at 1990-01-01 (631152000) for an empty series", async () => {
    readings["8231"] = [];
    await withSession(addupi, configFor(vendor), driverContext(), (s) => s.readingsAfter("8231", null));
    expect(vendor.dataRequests()[0].date).toBe("631152000");
  });

  it.each([
    [0, ""], [1, "INVALID"], [2, "INVALID"], [-99, "MISSING"], [-1, "MISSING"],
    // As the reference's int() reads them: a sign and spaces around.
    ["+1", "INVALID"], [" 2 ", "INVALID"], ["-0", ""],
  ])("turns the status %j into the flags %j", async (s, flags) => {
    readings.x = [{ t: 1655194200, value: "1.42", s }];
    const batch = await withSession(addupi, configFor(vendor), driverContext(), (session) => session.readingsAfter("x", null));
    expect(batch.readings).toEqual([{ time: 1655194200, value: 1.42, flags }]);
  });

  it.each([
    [3, 'the reading with timestamp 2022-06-14T08:10:00 has an invalid status value (s="3")'],
    [-100, 'the reading with timestamp 2022-06-14T08:10:00 has an invalid status value (s="-100")'],
    ["hello", 'the reading with timestamp 2022-06-14T08:10:00 has an invalid status value (s="hello")'],
    [null, "the reading with timestamp 2022-06-14T08:10:00 has an invalid status value (no s attribute)"],
  ])("refuses the status %j", async (s, message) => {
    readings.x = [{ t: 1655194200, value: "1.42", s }];
    const error = await telemetryFailure(withSession(addupi, configFor(vendor), driverContext(), (session) => session.readingsAfter("x", null)));
    expect(error.message).toBe(message);
  });

  it("reads an empty value as missing, and refuses a value that is not a number", async () => {
    readings.x = [{ t: 1655194200, value: "", s: -1 }];
    const batch = await withSession(addupi, configFor(vendor), driverContext(), (session) => session.readingsAfter("x", null));
    expect(batch.readings).toEqual([{ time: 1655194200, value: null, flags: "MISSING" }]);
    readings.x = [{ t: 1655194200, value: "1,5" }];
    const error = await telemetryFailure(withSession(addupi, configFor(vendor), driverContext(), (session) => session.readingsAfter("x", null)));
    expect(error.message).toBe('the reading with timestamp 2022-06-14T08:10:00 has an invalid value ("1,5")');
  });

  it("refuses a timestamp outside the years 1–9999 (the reference's datetime fails), storing nothing of it", async () => {
    // Milliseconds instead of seconds: the year 58886.
    readings.x = [{ t: 1655194200, value: "1" }, { t: 1796112000000, value: "2" }];
    const error = await telemetryFailure(withSession(addupi, configFor(vendor), driverContext(), (session) => session.readingsAfter("x", null)));
    expect(error.message).toBe(`a reading of ${host} has a timestamp outside the years 1–9999 (t="+1794456805800")`);
    // A relative timestamp that passes the end of 9999, and one before the year 1.
    vendor.fail("function=getdata", { kind: "body", body: "<response><node><v t='253402300000' s='0'>1</v><v t='+800' s='0'>2</v></node></response>" }, 1);
    const relative = await telemetryFailure(withSession(addupi, configFor(vendor), driverContext(), (session) => session.readingsAfter("x", null)));
    expect(relative.message).toBe(`a reading of ${host} has a timestamp outside the years 1–9999 (t="+800")`);
    vendor.fail("function=getdata", { kind: "body", body: "<response><node><v t='-62135596801' s='0'>1</v></node></response>" }, 1);
    const early = await telemetryFailure(withSession(addupi, configFor(vendor), driverContext(), (session) => session.readingsAfter("x", null)));
    expect(early.message).toBe(`a reading of ${host} has a timestamp outside the years 1–9999 (t="-62135596801")`);
    // The last instants of the range are read.
    vendor.fail("function=getdata", { kind: "body", body: "<response><node><v t='-62135596800' s='0'>1</v><v t='253402300799' s='0'>2</v></node></response>" }, 1);
    const edges = await withSession(addupi, configFor(vendor), driverContext(), (session) => session.readingsAfter("x", null));
    expect(edges.readings.map((r) => r.time)).toEqual([-62135596800, 253402300799]);
  });

  it("refuses a first reading with a relative timestamp", async () => {
    vendor.fail("function=getdata", { kind: "body", body: "<response><node><v t='+600' s='0'>1</v></node></response>" });
    const error = await telemetryFailure(withSession(addupi, configFor(vendor), driverContext(), (session) => session.readingsAfter("x", null)));
    expect(error.message).toBe(`the first reading of ${host} has a relative timestamp (t="+600")`);
  });

  it("says what the gateway says about an unknown sensor or an expired session", async () => {
    const unknown = await telemetryFailure(withSession(addupi, configFor(vendor), driverContext(), (s) => s.readingsAfter("nosuch", null)));
    expect(unknown.message).toBe(`${host} says: Unknown node nosuch`);
    const expired = await telemetryFailure(withSession(addupi, configFor(vendor), driverContext(), async (s) => {
      vendor.sessions.clear();
      return s.listStations();
    }));
    expect(expired.message).toBe(`${host} says: Invalid session`);
  });

  it("refuses XML that declares entities", async () => {
    vendor.fail("function=getconfig", { kind: "body", body: '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><response>&b;</response>' });
    const error = await telemetryFailure(withSession(addupi, configFor(vendor), driverContext(), (s) => s.listStations()));
    expect(error.message).toBe(`the answer of ${host} is not XML (entity declarations are refused)`);
  });
});

async function faultCase(match: string) {
  const vendor = await startFakeAddupi({ readings: { x: [{ t: 1655194200, value: "1" }] } });
  return {
    vendor,
    type: addupi,
    config: configFor(vendor),
    match,
    run: async (s: TelemetrySession) => {
      await s.connect();
      return s.readingsAfter("x", null);
    },
  };
}

describeCommonFaults("addupi (getdata)", () => faultCase("function=getdata"));
describeCommonFaults("addupi (login)", () => faultCase("function=login"));
