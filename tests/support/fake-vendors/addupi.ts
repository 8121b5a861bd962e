/**
 * A fake Adcon addUPI gateway: `GET /addUPI?function=…` answering XML in ISO-8859-1 (declared
 * in the XML, not in the HTTP headers, as the gateway does), as the reference's tests record:
 * login (user, passwd) → result/string = a session id; getconfig → DEVICE nodes with their
 * sensors under nodes/node; getdata (id, df=time_t, date, slots) → node/v with t (the first
 * absolute, the others "+N" after the one before) and s; logout. Errors are
 * <response><error code msg/></response>.
 */
import { readingsOf, startFake, type FakeAnswer, type FakeVendor, type ReadingSource, type StartOptions } from "@/tests/support/fake-vendors/base";

export interface AddupiReading {
  /** Epoch seconds (UTC). */
  t: number;
  /** The text of the <v> element. */
  value: string;
  /** The status attribute; null leaves it out. */
  s?: string | number | null;
}

export interface AddupiDevice {
  id: string;
  name: string;
  subclass?: string;
  sensors: { id: string; name: string }[];
}

export interface AddupiOptions extends StartOptions {
  user?: string;
  password?: string;
  devices?: AddupiDevice[];
  readings?: ReadingSource<AddupiReading>;
}

export interface FakeAddupi extends FakeVendor {
  /** The session ids given and not yet logged out. */
  readonly sessions: Set<string>;
  /** The getdata requests: id, date, slots. */
  readonly dataRequests: () => { id: string | null; date: string | null; slots: string | null; session: string | null }[];
}

const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");

function xml(inner: string): FakeAnswer {
  // Latin-1 bytes, the encoding only in the XML declaration.
  return { headers: { "Content-Type": "text/xml" }, body: Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?>\n<response>${inner}</response>`, "latin1") };
}

const error = (code: number, msg: string) => xml(`<error code="${code}" msg="${escape(msg)}"/>`);

export async function startFakeAddupi(options: AddupiOptions = {}): Promise<FakeAddupi> {
  const user = options.user ?? "alice";
  const password = options.password ?? "topsecretpassword";
  const devices = options.devices ?? [
    { id: "1852", name: "Hobbiton", subclass: "", sensors: [{ id: "42a", name: "temperature" }, { id: "43b", name: "humidity" }] },
    { id: "2581", name: "Rivendell", subclass: "", sensors: [{ id: "51", name: "Bärenhöhle rain" }] },
  ];
  const readings = options.readings ?? {};
  const sessions = new Set<string>();
  let next = 1;

  const vendor = await startFake((request) => {
    if (request.path !== "/addUPI") return { status: 404, body: "Not Found" };
    const q = request.query;
    const fn = q.get("function");
    if (fn === "login") {
      if (q.get("user") !== user || q.get("passwd") !== password) return error(2, "Invalid username or password");
      const id = `session${next++}x`;
      sessions.add(id);
      return xml(`<result><string>${id}</string></result>`);
    }
    if (!sessions.has(q.get("session-id") ?? "")) return error(7, "Invalid session");
    switch (fn) {
      case "logout":
        sessions.delete(q.get("session-id")!);
        return xml("<result/>");
      case "getconfig": {
        const nodes = devices.map((d) =>
          `<node class="DEVICE" id="${escape(d.id)}" name="${escape(d.name)}" subclass="${escape(d.subclass ?? "")}"><nodes>` +
          d.sensors.map((s) => `<node class="TAG" id="${escape(s.id)}" name="${escape(s.name)}"/>`).join("") +
          "</nodes></node>").join("");
        return xml(`<result><configuration><node class="AREA" id="1" name="Area"><nodes>${nodes}</nodes></node></configuration></result>`);
      }
      case "getdata": {
        const id = q.get("id") ?? "";
        const list = readingsOf(readings, id);
        if (list === undefined) return error(11, `Unknown node ${id}`);
        const date = Number(q.get("date"));
        const slots = Number(q.get("slots") ?? 100);
        const chosen = list.filter((r) => r.t > date).slice(0, slots);
        const vs = chosen.map((r, k) => {
          const t = k === 0 ? String(r.t) : `+${r.t - chosen[k - 1].t}`;
          const s = r.s === null ? "" : ` s="${r.s ?? 0}"`;
          return `<v t="${t}"${s}>${escape(r.value)}</v>`;
        });
        return xml(`<node id="${escape(id)}">${vs.join("")}</node>`);
      }
      default:
        return error(1, `Unknown function ${fn}`);
    }
  }, options);
  return Object.assign(vendor, {
    sessions,
    dataRequests: () =>
      vendor.requests
        .filter((r) => r.query.get("function") === "getdata")
        .map((r) => ({ id: r.query.get("id"), date: r.query.get("date"), slots: r.query.get("slots"), session: r.query.get("session-id") })),
  });
}
