import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { inFormWords } from "@/lib/site/form-words";
import type { TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { CookieJar, siteLogin } from "@/tests/support/site-session";
import { fieldMessages, formMessages, formsOf, siteForms, type Fields, type SiteForm } from "@/tests/support/site-forms";
import { suiteServer } from "@/tests/support/suite";

/**
 * The management pages' forms (management.md §1–2, issue 14 item 6) as a browser without
 * JavaScript posts them to the real server: each action for an anonymous visitor (sent to the
 * login page), a logged-in user without rights (the 403 page, nothing changed), an editor of the
 * station (or an adder, for a new station) and a superuser (both sent on to the object's page,
 * the change made); a stale `last_modified` (refused, the stored values shown beside the user's);
 * invalid input (the API's exact message next to its field, the typed input kept). What changed
 * is read back through the API.
 */
const s = suiteServer();

interface Person { user: f.TestUser; cookie: string; token: string }

let admin: Person;
let editor: Person;
let adder: Person;
let other: Person;
let variable: number;
let unit: number;
let eventType: number;
let stationType: number;

/** The form token of a logged-in user: it is the same in every form of their session. */
async function tokenOf(cookie: string, path: string): Promise<string> {
  const r = await siteForms(s.server.url).page(path, cookie);
  expect(r.status, path).toBe(200);
  const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(r.text)?.[1];
  if (!token) throw new Error(`no form token on ${path}`);
  return token;
}

/** A user logged in on the site, with a station of their own (a page with forms, for their form token). */
async function person(options: Parameters<typeof f.user>[0] = {}): Promise<Person> {
  const user = await f.user(options);
  const own = await f.station({ maintainers: [user.id] });
  const { jar, error } = await siteLogin(s.server.url, user.username, user.password, new CookieJar());
  expect(error).toBeNull();
  const cookie = jar.header();
  return { user, cookie, token: await tokenOf(cookie, `/manage/stations/${own}/`) };
}

const site = () => siteForms(s.server.url);
const api = (path: string) => s.http.get(path, { token: admin.user.token });

/** Posts `form` as `who` (their own form token), or anonymously. */
function post(form: SiteForm, fields: Fields, who: Person | null): Promise<TestResponse> {
  const typed = Array.isArray(fields) ? fields : Object.entries(fields).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x] as [string, string]) : [[k, v] as [string, string]]));
  return site().submit(form, who ? [...typed, ["csrfmiddlewaretoken", who.token]] : typed, who?.cookie ?? "");
}

function expectLanded(r: TestResponse, location: RegExp) {
  expect(r.status, r.text.slice(0, 500)).toBe(303);
  expect(r.headers.get("location")).toMatch(location);
}

function expectForbidden(r: TestResponse) {
  expect(r.status).toBe(403);
  expect(r.headers.get("content-type")).toMatch(/^text\/html/);
  expect(r.text).toContain("You do not have permission to see this page");
}

function expectLogin(r: TestResponse, page: string) {
  expect(r.status).toBe(307);
  expect(r.headers.get("location")).toBe(`/accounts/login/?next=${encodeURIComponent(page)}`);
}

beforeAll(async () => {
  admin = await person({ superuser: true });
  editor = await person();
  adder = await person({ canAddStations: true });
  other = await person();
  variable = await f.variable("Water level");
  unit = await f.unit("m", [variable]);
  eventType = await f.eventType("Maintenance");
  stationType = await f.stationType("Stream gauge");
});

/**
 * What one action works on: a station that `editor` maintains, with a group, an Initial series,
 * a file, an image, an event and an aggregation; an owner, an event type and a user.
 */
async function stationTree() {
  const owner = await f.organization();
  const sid = await f.station({ maintainers: [editor.user.id], ownerId: owner });
  const gid = await f.group(sid, { name: "Stage", variableId: variable, unitId: unit });
  const tid = await f.series(gid, { type: "Initial", timeStep: "10min" });
  const fileId = await f.attachment("files", sid, { fileName: "sheet.pdf", bytes: "%PDF-1.4", descr: "Calibration sheet" });
  const imageId = await f.attachment("images", sid, { fileName: "gauge.png", bytes: "png", descr: "The gauge" });
  const eventId = await f.event(sid, { date: "2025-03-02", typeId: eventType, report: "Cleaned" });
  const created = await s.http.post(`/api/stations/${sid}/timeseriesgroups/${gid}/processes/`, {
    token: admin.user.token, json: { type: "aggregation", target_time_step: "1h", method: "mean" },
  });
  expect(created.status, created.text).toBe(201);
  const lookupId = await f.eventType();
  const { id: userId, username } = await f.user();
  return { owner, sid, gid, tid, fileId, imageId, eventId, pid: created.json.id as number, lookupId, userId, username };
}

type Tree = Awaited<ReturnType<typeof stationTree>>;

interface Action {
  /** The page that holds the form, the form's label, the fields typed. */
  page: (t: Tree) => string;
  label: string | RegExp;
  fields: (t: Tree) => Fields;
  /** Where a successful post lands. */
  lands: (t: Tree) => RegExp;
  /** Whether the change was made, read through the API. */
  done: (t: Tree) => Promise<boolean>;
  /** Who may besides superusers: the station's editor, an adder of stations, or nobody. */
  allowed: "editor" | "adder" | null;
}

const userNamed = (username: string) => db().prisma.user.findUnique({ where: { username } });
const gone = async (path: string) => (await api(path)).status === 404;
const field = async (path: string, name: string) => (await api(path)).json?.[name];
const station = (t: Tree) => `/api/stations/${t.sid}/`;
const group = (t: Tree) => `${station(t)}timeseriesgroups/${t.gid}/`;
const pdf = () => new Blob(["%PDF-1.4 new"], { type: "application/pdf" });

const ACTIONS: Record<string, Action> = {
  "station create": {
    page: () => "/manage/stations/new/", label: "Station", allowed: "adder",
    fields: (t) => ({ name: `New station ${t.sid}`, owner: String(t.owner), geom_x: "21.5", geom_y: "39.5", geom_srid: "4326" }),
    lands: () => /^\/manage\/stations\/\d+\/\?done=created$/,
    done: async (t) => (await db().prisma.station.count({ where: { name: `New station ${t.sid}` } })) === 1,
  },
  "station edit": {
    page: (t) => `/manage/stations/${t.sid}/`, label: "Station", allowed: "editor",
    fields: () => ({ name: "Renamed station" }),
    lands: (t) => new RegExp(`^/manage/stations/${t.sid}/\\?done=saved$`),
    done: async (t) => (await field(station(t), "name")) === "Renamed station",
  },
  "station delete": {
    page: (t) => `/manage/stations/${t.sid}/delete/`, label: /^Delete station/, allowed: "editor",
    fields: () => ({}), lands: () => /^\/manage\/\?done=station-deleted$/,
    done: (t) => gone(station(t)),
  },
  "maintainers and data viewers": {
    page: (t) => `/manage/stations/${t.sid}/`, label: "Maintainers and data viewers", allowed: "editor",
    fields: () => ({ data_viewers: ["", String(other.user.id)] }),
    lands: (t) => new RegExp(`^/manage/stations/${t.sid}/\\?done=people#people$`),
    done: async (t) => ((await field(station(t), "data_viewers")) as number[]).includes(other.user.id),
  },
  "group add": {
    page: (t) => `/manage/stations/${t.sid}/`, label: "New time series group", allowed: "editor",
    fields: () => ({ name: "Discharge", variable: String(variable), unit_of_measurement: String(unit), precision: "3" }),
    lands: (t) => new RegExp(`^/manage/stations/${t.sid}/timeseriesgroups/\\d+/\\?done=created$`),
    done: async (t) => ((await api(`${station(t)}timeseriesgroups/`)).json.results as { name: string }[]).some((g) => g.name === "Discharge"),
  },
  "group edit": {
    page: (t) => `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/`, label: "Time series group", allowed: "editor",
    fields: () => ({ name: "Stage (new sensor)" }),
    lands: (t) => new RegExp(`^/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/\\?done=saved$`),
    done: async (t) => (await field(group(t), "name")) === "Stage (new sensor)",
  },
  "group delete": {
    page: (t) => `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/delete/`, label: /^Delete time series group/, allowed: "editor",
    fields: () => ({}), lands: (t) => new RegExp(`^/manage/stations/${t.sid}/\\?done=group-deleted#groups$`),
    done: (t) => gone(group(t)),
  },
  "series add": {
    page: (t) => `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/`, label: "New time series", allowed: "editor",
    fields: () => ({ type: "Checked", time_step: "10min" }),
    lands: (t) => new RegExp(`^/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/\\?done=series-created#series-\\d+$`),
    done: async (t) => ((await api(`${group(t)}timeseries/`)).json.results as { type: string }[]).some((x) => x.type === "Checked"),
  },
  "series edit": {
    page: (t) => `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/`, label: /^Time series Initial/, allowed: "editor",
    fields: () => ({ name: "Raw logger" }),
    lands: (t) => new RegExp(`^/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/\\?done=series-saved#series-${t.tid}$`),
    done: async (t) => (await field(`${group(t)}timeseries/${t.tid}/`, "name")) === "Raw logger",
  },
  "series delete": {
    page: (t) => `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/timeseries/${t.tid}/delete/`, label: /^Delete time series/, allowed: "editor",
    fields: () => ({}), lands: (t) => new RegExp(`^/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/\\?done=series-deleted$`),
    done: (t) => gone(`${group(t)}timeseries/${t.tid}/`),
  },
  "file add": {
    page: (t) => `/manage/stations/${t.sid}/`, label: "New file", allowed: "editor",
    fields: () => [["descr", "Rating table"], ["content", new File([pdf()], "rating.pdf", { type: "application/pdf" })]],
    lands: (t) => new RegExp(`^/manage/stations/${t.sid}/\\?done=files-added#files$`),
    done: async (t) => ((await api(`${station(t)}files/`)).json.results as { descr: string }[]).some((x) => x.descr === "Rating table"),
  },
  "file delete": {
    page: (t) => `/manage/stations/${t.sid}/files/${t.fileId}/delete/`, label: /^Delete/, allowed: "editor",
    fields: () => ({}), lands: (t) => new RegExp(`^/manage/stations/${t.sid}/\\?done=files-deleted#files$`),
    done: (t) => gone(`${station(t)}files/${t.fileId}/`),
  },
  "image add": {
    page: (t) => `/manage/stations/${t.sid}/`, label: "New image", allowed: "editor",
    fields: () => [["descr", "After the flood"], ["content", new File([Buffer.from("89504e470d0a1a0a", "hex")], "flood.png", { type: "image/png" })]],
    lands: (t) => new RegExp(`^/manage/stations/${t.sid}/\\?done=images-added#images$`),
    done: async (t) => ((await api(`${station(t)}images/`)).json.results as { descr: string }[]).some((x) => x.descr === "After the flood"),
  },
  "image delete": {
    page: (t) => `/manage/stations/${t.sid}/images/${t.imageId}/delete/`, label: /^Delete/, allowed: "editor",
    fields: () => ({}), lands: (t) => new RegExp(`^/manage/stations/${t.sid}/\\?done=images-deleted#images$`),
    done: (t) => gone(`${station(t)}images/${t.imageId}/`),
  },
  "event add": {
    page: (t) => `/manage/stations/${t.sid}/`, label: "New event", allowed: "editor",
    fields: () => ({ date: "2025-04-01", type: String(eventType), user: "Maria", report: "Replaced the battery" }),
    lands: (t) => new RegExp(`^/manage/stations/${t.sid}/\\?done=events-added#events$`),
    done: async (t) => ((await api(`${station(t)}events/`)).json.results as { report: string }[]).some((x) => x.report === "Replaced the battery"),
  },
  "event delete": {
    page: (t) => `/manage/stations/${t.sid}/events/${t.eventId}/delete/`, label: /^Delete/, allowed: "editor",
    fields: () => ({}), lands: (t) => new RegExp(`^/manage/stations/${t.sid}/\\?done=events-deleted#events$`),
    done: (t) => gone(`${station(t)}events/${t.eventId}/`),
  },
  "process add": {
    page: (t) => `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/`, label: "New aggregation process", allowed: "editor",
    fields: () => ({ target_time_step: "1D", method: "sum", max_missing: "3" }),
    lands: (t) => new RegExp(`^/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/processes/\\d+/\\?done=process-created$`),
    done: async (t) => ((await api(`${group(t)}processes/`)).json.results as { target_time_step?: string }[]).some((p) => p.target_time_step === "1D"),
  },
  "process edit": {
    page: (t) => `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/processes/${t.pid}/`, label: "Process", allowed: "editor",
    fields: () => ({ max_missing: "4" }),
    lands: (t) => new RegExp(`^/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/processes/${t.pid}/\\?done=process-saved$`),
    done: async (t) => (await field(`${group(t)}processes/${t.pid}/`, "max_missing")) === 4,
  },
  "process run": {
    page: (t) => `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/processes/${t.pid}/`, label: "Run from scratch", allowed: "editor",
    fields: () => ({}),
    lands: (t) => new RegExp(`^/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/processes/${t.pid}/\\?done=run-queued#run-\\d+$`),
    // The run request is in the station's activity (a queued run may absorb it: the queue coalesces).
    done: async (t) => ((await api(`${station(t)}activity/`)).json.results as { action: string }[]).some((e) => e.action === "run"),
  },
  "process delete": {
    page: (t) => `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/processes/${t.pid}/delete/`, label: /^Delete process/, allowed: "editor",
    fields: () => ({}), lands: (t) => new RegExp(`^/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/\\?done=process-deleted#processes$`),
    done: (t) => gone(`${group(t)}processes/${t.pid}/`),
  },
  "lookup add": {
    page: () => "/manage/lookups/stationtypes/", label: "New station type", allowed: null,
    fields: (t) => ({ descr: `Snow pillow ${t.sid}` }),
    lands: () => /^\/manage\/lookups\/stationtypes\/\?done=created$/,
    done: async (t) => ((await api("/api/stationtypes/")).json.results as { descr: string }[]).some((x) => x.descr === `Snow pillow ${t.sid}`),
  },
  "lookup edit": {
    page: () => `/manage/lookups/stationtypes/${stationType}/`, label: "Edit station type", allowed: null,
    fields: (t) => ({ descr: `Stream gauge ${t.sid}` }),
    lands: () => /^\/manage\/lookups\/stationtypes\/\?done=saved$/,
    done: async (t) => (await field(`/api/stationtypes/${stationType}/`, "descr")) === `Stream gauge ${t.sid}`,
  },
  "lookup delete": {
    page: (t) => `/manage/lookups/eventtypes/${t.lookupId}/delete/`, label: /^Delete event type/, allowed: null,
    fields: () => ({}), lands: () => /^\/manage\/lookups\/eventtypes\/\?done=deleted$/,
    done: (t) => gone(`/api/eventtypes/${t.lookupId}/`),
  },
  "user add": {
    page: () => "/manage/users/", label: "New user", allowed: null,
    fields: (t) => ({ username: `newcomer${t.sid}`, email: `newcomer${t.sid}@example.com` }),
    lands: () => /^\/manage\/users\/\d+\/\?done=created$/,
    done: async (t) => (await userNamed(`newcomer${t.sid}`)) !== null,
  },
  "user edit": {
    page: (t) => `/manage/users/${t.userId}/`, label: "User", allowed: null,
    fields: () => ({ first_name: "Eleni" }),
    lands: (t) => new RegExp(`^/manage/users/${t.userId}/\\?done=saved$`),
    done: async (t) => (await userNamed(t.username))?.firstName === "Eleni",
  },
};

describe.each(Object.entries(ACTIONS))("%s", (_name, action) => {
  /** The form as its page shows it to someone who may use it. */
  async function opened(t: Tree): Promise<SiteForm> {
    return site().form(action.page(t), admin.cookie, action.label);
  }

  it("anonymous: sent to the login page, which returns to the page; nothing changes", async () => {
    const t = await stationTree();
    const form = await opened(t);
    expectLogin(await post(form, action.fields(t), null), action.page(t));
    expect(await action.done(t)).toBe(false);
  });

  it("a logged-in user without the right: the 403 page; nothing changes", async () => {
    const t = await stationTree();
    const form = await opened(t);
    // `other` maintains a station of their own: an editor elsewhere, who may not add stations or administer.
    expectForbidden(await post(form, action.fields(t), other));
    expect(await action.done(t)).toBe(false);
  });

  if (action.allowed) {
    it(`${action.allowed === "editor" ? "an editor of the station" : "a user who may add stations"}: done, sent to the object's page`, async () => {
      const t = await stationTree();
      const who = action.allowed === "editor" ? editor : adder;
      const form = await site().form(action.page(t), who.cookie, action.label);
      expectLanded(await post(form, action.fields(t), who), action.lands(t));
      expect(await action.done(t)).toBe(true);
    });
  }

  it("a superuser: done, sent to the object's page", async () => {
    const t = await stationTree();
    const form = await opened(t);
    expectLanded(await post(form, action.fields(t), admin), action.lands(t));
    expect(await action.done(t)).toBe(true);
  });

  if (action.allowed) {
    it("a form posted with another session's token: refused as expired, the input kept; nothing changes", async () => {
      const t = await stationTree();
      const who = action.allowed === "editor" ? editor : adder;
      // The superuser's form (and token), posted with the session of someone who may do it.
      const r = await site().submit(await opened(t), action.fields(t), who.cookie);
      expect(r.status).toBe(200);
      expect(formMessages(r.text)).toEqual(["This form has expired (you have logged in again since it was opened). Submit it again."]);
      expect(await action.done(t)).toBe(false);
    });
  }
});

/** The HTML of the form labelled `label`. */
function formHtml(html: string, label: string | RegExp): string {
  for (const m of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const found = /aria-label="([^"]*)"/.exec(m[1])?.[1];
    if (found !== undefined && (typeof label === "string" ? found === label : label.test(found))) return m[2];
  }
  throw new Error(`no form ${label}`);
}

/** The messages shown next to the field `name` of the form (the list its control's aria-describedby names). */
function messagesOf(page: string, label: string | RegExp, name: string): string[] {
  const html = formHtml(page, label);
  const control = new RegExp(`<(?:input|select|textarea)\\b(?=[^>]*\\sname="${name}")(?![^>]*type="hidden")([^>]*)>`).exec(html);
  const ids = /aria-describedby="([^"]*)"/.exec(control?.[1] ?? "")?.[1].split(" ") ?? [];
  const errorsId = ids.find((id) => html.includes(`<ul class="field-errors" id="${id}"`));
  if (!errorsId) return [];
  const list = html.slice(html.indexOf(`<ul class="field-errors" id="${errorsId}"`));
  return fieldMessages(list.slice(0, list.indexOf("</ul>") + 5));
}

/** The value the re-rendered form shows in `name`. */
function shownValue(html: string, label: string | RegExp, name: string): string | undefined {
  const forms = formsOf(html, "");
  const form = typeof label === "string" ? forms.get(label) : [...forms].find(([k]) => label.test(k))?.[1];
  return form?.shown.filter(([k]) => k === name).at(-1)?.[1];
}

describe("a stale form (management.md §1 No lost updates)", () => {
  const CASES: { name: string; page: (t: Tree) => string; label: string | RegExp; field: string; mine: string; api: (t: Tree) => string; theirs: Record<string, unknown>; stored: string; what: string }[] = [
    { name: "station", page: (t) => `/manage/stations/${t.sid}/`, label: "Station", field: "name", mine: "Mine", api: station, theirs: { name: "Theirs" }, stored: "Theirs", what: "station" },
    { name: "time series group", page: (t) => `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/`, label: "Time series group", field: "name", mine: "Mine", api: group, theirs: { name: "Theirs" }, stored: "Theirs", what: "time series group" },
    { name: "time series", page: (t) => `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/`, label: /^Time series Initial/, field: "name", mine: "Mine", api: (t) => `${group(t)}timeseries/${t.tid}/`, theirs: { name: "Theirs" }, stored: "Theirs", what: "time series" },
    { name: "event", page: (t) => `/manage/stations/${t.sid}/events/${t.eventId}/`, label: "Edit event", field: "report", mine: "Mine", api: (t) => `${station(t)}events/${t.eventId}/`, theirs: { report: "Theirs" }, stored: "Theirs", what: "event" },
    { name: "file", page: (t) => `/manage/stations/${t.sid}/files/${t.fileId}/`, label: "Edit file", field: "descr", mine: "Mine", api: (t) => `${station(t)}files/${t.fileId}/`, theirs: { descr: "Theirs" }, stored: "Theirs", what: "file" },
    { name: "process", page: (t) => `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/processes/${t.pid}/`, label: "Process", field: "max_missing", mine: "5", api: (t) => `${group(t)}processes/${t.pid}/`, theirs: { max_missing: 7 }, stored: "7", what: "process" },
    { name: "lookup", page: (t) => `/manage/lookups/eventtypes/${t.lookupId}/`, label: "Edit event type", field: "descr", mine: "Mine", api: (t) => `/api/eventtypes/${t.lookupId}/`, theirs: { descr: "Theirs" }, stored: "Theirs", what: "event type" },
  ];

  it.each(CASES)("$name: refused with the stored values beside the user's; saving again replaces them", async (c) => {
    const t = await stationTree();
    const who = c.name === "lookup" ? admin : editor;
    const form = await site().form(c.page(t), who.cookie, c.label);
    await new Promise((r) => setTimeout(r, 5));
    const changed = await s.http.patch(c.api(t), { token: admin.user.token, json: c.theirs });
    expect(changed.status, changed.text).toBe(200);

    const refused = await post(form, { [c.field]: c.mine }, who);
    expect(refused.status).toBe(200);
    expect(formMessages(refused.text)).toEqual([
      `This ${c.what} was changed by someone else since you opened it.`,
      "The values saved now are shown under each field that differs. Save again to replace them with yours.",
    ]);
    expect(shownValue(refused.text, c.label, c.field)).toBe(c.mine);
    expect(refused.text).toContain(`<p class="stored-value"`);
    expect(refused.text).toMatch(new RegExp(`Saved now: (<!-- -->)?${c.stored}</p>`));
    expect(String((await api(c.api(t))).json[c.field])).toBe(c.stored);

    // The refused page's form carries the stored version: posting it again is a knowing overwrite.
    const again = formsOf(refused.text, c.page(t));
    const resubmitted = typeof c.label === "string" ? again.get(c.label)! : [...again].find(([k]) => (c.label as RegExp).test(k))![1];
    expect((await post(resubmitted, {}, who)).status).toBe(303);
    expect(String((await api(c.api(t))).json[c.field])).toBe(c.mine);
  });
});

describe("invalid input: the API's message next to its field (in the form's words), the input kept, nothing saved", () => {
  const CASES: { name: string; page: (t: Tree) => string; label: string | RegExp; typed: () => Record<string, string>; messages: Record<string, string[]>; api: (t: Tree) => string; apiMethod: "post" | "patch" }[] = [
    { name: "station edit", page: (t) => `/manage/stations/${t.sid}/`, label: "Station", typed: () => ({ altitude: "high", start_date: "2025-13-01" }),
      messages: { altitude: ["A valid number is required."], start_date: ["Date has wrong format. Use one of these formats instead: YYYY-MM-DD."] }, api: station, apiMethod: "patch" },
    { name: "group add", page: (t) => `/manage/stations/${t.sid}/`, label: "New time series group", typed: () => ({ name: "Rain", variable: String(variable), unit_of_measurement: String(unit), precision: "two" }),
      messages: { precision: ["A valid integer is required."] }, api: (t) => `${station(t)}timeseriesgroups/`, apiMethod: "post" },
    { name: "series add", page: (t) => `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/`, label: "New time series", typed: () => ({ type: "Checked", time_step: "10 fortnights" }),
      messages: { time_step: ["Ensure this field has no more than 7 characters."] }, api: (t) => `${group(t)}timeseries/`, apiMethod: "post" },
    { name: "aggregation add", page: (t) => `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/`, label: "New aggregation process", typed: () => ({ target_time_step: "1M", method: "mean", max_missing: "40000", resulting_timestamp_offset: "30" }),
      messages: { target_time_step: ['"1M" is in months or years; only minutes, hours and days are supported.'], max_missing: ["Ensure this value is less than or equal to 32767."],
        resulting_timestamp_offset: ['"30" is not a valid resulting timestamp offset.'] },
      api: (t) => `${group(t)}processes/`, apiMethod: "post" },
    { name: "event add", page: (t) => `/manage/stations/${t.sid}/`, label: "New event", typed: () => ({ date: "yesterday", type: String(eventType), report: "Found the logger flooded" }),
      messages: { date: ["Date has wrong format. Use one of these formats instead: YYYY-MM-DD."] }, api: (t) => `${station(t)}events/`, apiMethod: "post" },
  ];

  it.each(CASES)("$name", async (c) => {
    const t = await stationTree();
    const form = await site().form(c.page(t), editor.cookie, c.label);
    const typed = c.typed();
    const before = (await api(c.api(t))).json;
    const r = await post(form, typed, editor);
    expect((await api(c.api(t))).json).toEqual(before);
    expect(r.status).toBe(200);
    // Every message shown is one of the fields' (none elsewhere on the page), in the form's words
    // (lib/site/form-words.ts: labels for member names, how to write a time step).
    const shown = (name: string) => c.messages[name].map((m) => inFormWords(m, name));
    expect(fieldMessages(formHtml(r.text, c.label)).sort()).toEqual(Object.keys(c.messages).flatMap(shown).sort());
    // What the API answers to the same fields, with the form's other values.
    const body = Object.fromEntries(form.shown.filter(([k]) => !k.startsWith("$ACTION") && k !== "csrfmiddlewaretoken"));
    const answer = await s.http[c.apiMethod](c.api(t), { token: editor.user.token, form: { ...body, ...typed } });
    expect(answer.status, answer.text).toBe(400);
    for (const [name, messages] of Object.entries(c.messages)) {
      expect(messagesOf(r.text, c.label, name), name).toEqual(shown(name));
      expect(answer.json[name], name).toEqual(messages);
    }
    for (const [name, value] of Object.entries(typed)) expect(shownValue(r.text, c.label, name), name).toBe(value);
  });

  it("time steps: no maxlength cuts them in the browser (\"10 minutes\" became \"10 minu\"); one typed in words is understood; a long one is refused by the server with the API's message and kept", async () => {
    const t = await stationTree();
    const groupPage = `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/`;
    const processPage = `${groupPage}processes/${t.pid}/`;
    const control = (html: string, label: string | RegExp, name: string) => new RegExp(`<input\\b(?=[^>]*\\sname="${name}")[^>]*>`).exec(formHtml(html, label))?.[0];
    const page = (await site().page(groupPage, editor.cookie)).text;
    const shown = [control(page, "New time series", "time_step"), control(page, /^Time series Initial/, "time_step"), control(page, "New aggregation process", "target_time_step"),
      control((await site().page(processPage, editor.cookie)).text, "Process", "target_time_step")];
    for (const input of shown) {
      expect(input).toBeDefined();
      expect(input).not.toMatch(/maxlength/i);
    }
    const LENGTH = "Ensure this field has no more than 7 characters.";
    const typed = "1".repeat(20_000);
    const r = await post(await site().form(groupPage, editor.cookie, "New time series"), { type: "Checked", time_step: typed }, editor);
    expect(r.status).toBe(200);
    expect(messagesOf(r.text, "New time series", "time_step")).toEqual([inFormWords(LENGTH, "time_step")]);
    expect(shownValue(r.text, "New time series", "time_step")).toBe(typed);
    const agg = await post(await site().form(groupPage, editor.cookie, "New aggregation process"), { target_time_step: typed, method: "mean" }, editor);
    expect(agg.status).toBe(200);
    expect(messagesOf(agg.text, "New aggregation process", "target_time_step")).toEqual([inFormWords(LENGTH, "target_time_step")]);
    expect(shownValue(agg.text, "New aggregation process", "target_time_step")).toBe(typed);
    expect((await api(`${group(t)}timeseries/`)).json.results.map((x: { type: string }) => x.type)).not.toContain("Checked");
    // Typed as people write it, it is the API's "10min".
    expect((await post(await site().form(groupPage, editor.cookie, "New time series"), { type: "Checked", time_step: "10 minutes" }, editor)).status).toBe(303);
    const stored = (await api(`${group(t)}timeseries/`)).json.results.find((x: { type: string }) => x.type === "Checked");
    expect(stored?.time_step).toBe("10min");
  });
});

describe("the upload page and its store step (the page posts to the API with the session)", () => {
  const upload = (t: Tree) => `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/timeseries/${t.tid}/upload/`;
  const data = (t: Tree) => `${group(t)}timeseries/${t.tid}/data/`;
  const LINES = "2025-03-01 00:00,1.5,\n2025-03-01 00:10,1.6,\n";

  /** The store request as UploadForm sends it: multipart, the session cookie, a csrftoken cookie and the same value in X-CSRFToken, from the site's origin. */
  function store(t: Tree, who: Person | null, text = LINES) {
    const body = new FormData();
    for (const [k, v] of Object.entries({ timeseries_records: text, timezone: "Etc/GMT-2", mode: "append", dry_run: "false" })) body.append(k, v);
    const cookie = [who?.cookie, "csrftoken=upload-form-token-0123456789abcdef"].filter(Boolean).join("; ");
    return fetch(s.server.url + data(t), { method: "POST", body, headers: { Cookie: cookie, "X-CSRFToken": "upload-form-token-0123456789abcdef", Origin: s.server.url } });
  }

  it("anonymous: the page sends to the login page; the store is refused with 401", async () => {
    const t = await stationTree();
    expectLogin(await site().page(upload(t), ""), upload(t));
    const r = await store(t, null);
    expect(r.status).toBe(401);
    expect(await r.json()).toEqual({ detail: "Authentication credentials were not provided." });
  });

  it("a user without the right: the 403 page; the store is refused with 403 and nothing is stored", async () => {
    const t = await stationTree();
    expectForbidden(await site().page(upload(t), other.cookie));
    const r = await store(t, other);
    expect(r.status).toBe(403);
    expect(await r.json()).toEqual({ detail: "You do not have permission to perform this action." });
    expect((await s.http.get(`${data(t)}?fmt=csv`, { token: admin.user.token })).text).toBe("");
  });

  it.each([["an editor of the station", () => editor], ["a superuser", () => admin]])("%s: the page, and the records stored", async (_who, who) => {
    const t = await stationTree();
    const page = await site().page(upload(t), who().cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Upload records to Initial (10min)");
    const r = await store(t, who());
    expect(r.status, await r.clone().text()).toBe(204);
    expect((await s.http.get(data(t), { token: admin.user.token })).text).toBe("2025-03-01 00:00,1.50,\r\n2025-03-01 00:10,1.60,\r\n");
  });

  it("warns on a series that processing writes, naming and linking the processes; not on the series they read", async () => {
    const t = await stationTree();
    const checks = await s.http.post(`${group(t)}processes/`, { token: admin.user.token, json: { type: "checks", range_check: { lower_bound: -10, upper_bound: 50 } } });
    expect(checks.status, checks.text).toBe(201);
    const series = (await api(`${group(t)}timeseries/`)).json.results as { id: number; type: string }[];
    const warning = (html: string) => /<div class="message warning" role="note">([\s\S]*?)<\/div>/.exec(html.replace(/<!-- -->/g, ""))?.[1] ?? null;
    const processPage = (pid: number) => `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/processes/${pid}/`;
    expect(warning((await site().page(upload(t), editor.cookie)).text)).toBeNull();
    const checked = warning((await site().page(upload({ ...t, tid: series.find((x) => x.type === "Checked")!.id }), editor.cookie)).text);
    expect(checked).toContain("Automatic processing writes this time series:");
    expect(checked).toContain(`href="${processPage(checks.json.id)}"`);
    expect(checked).toContain("range −10…50");
    expect(checked).not.toContain(`processes/${t.pid}/`);
    const aggregated = warning((await site().page(upload({ ...t, tid: series.find((x) => x.type === "Aggregated")!.id }), editor.cookie)).text);
    expect(aggregated).toContain(`href="${processPage(t.pid)}"`);
    expect(aggregated).toContain("may be overwritten");
  });

  it("invalid lines: the API's messages with their line numbers; nothing is stored", async () => {
    const t = await stationTree();
    const r = await store(t, editor, "2025-03-01 00:00,1.5,\n2025-03-01 00:10,abc,\n");
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ timeseries_records: ['line 2: invalid value "abc"'] });
    expect((await s.http.get(data(t), { token: admin.user.token })).text).toBe("");
  });
});

describe("process forms: threshold lines and pasted curve points (processing.md §1)", () => {
  const groupPage = (t: Tree) => `/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/`;
  const processes = async (t: Tree) => (await api(`${group(t)}processes/`)).json.results as Record<string, unknown>[];

  it("checks: thresholds one per line as `10min 7.3` (empty lines and spreadsheet cells too) are the API's list", async () => {
    const t = await stationTree();
    const form = await site().form(groupPage(t), editor.cookie, "New checks process");
    const r = await post(form, { range_lower_bound: "-10", range_upper_bound: "50", rate_thresholds: "10min 7.3\n\n1h\t15,5\n", rate_symmetric: "true" }, editor);
    expectLanded(r, new RegExp(`^/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/processes/\\d+/\\?done=process-created$`));
    const checks = (await processes(t)).find((p) => p.type === "checks")!;
    expect(checks.range_check).toEqual({ lower_bound: -10, upper_bound: 50, soft_lower_bound: null, soft_upper_bound: null });
    expect(checks.rate_of_change_check).toEqual({ symmetric: true, remove_failing_values: false, thresholds: [{ delta_t: "10min", allowed_diff: 7.3 }, { delta_t: "1h", allowed_diff: 15.5 }] });
  });

  it("once a group has checks, its page no longer offers \"Add checks\" (at most one per group), but still the other kinds", async () => {
    const t = await stationTree();
    const formsOfPage = async () => [...formsOf((await site().page(groupPage(t), editor.cookie)).text, groupPage(t)).keys()].filter((k) => k.endsWith(" process"));
    expect(await formsOfPage()).toEqual(["New checks process", "New aggregation process", "New curve interpolation process"]);
    const form = await site().form(groupPage(t), editor.cookie, "New checks process");
    expectLanded(await post(form, { range_lower_bound: "-10", range_upper_bound: "50" }, editor), /\/processes\/\d+\/\?done=process-created$/);
    expect(await formsOfPage()).toEqual(["New aggregation process", "New curve interpolation process"]);
  });

  it("checks: the API's messages about threshold lines, told by line number in the form's words; the lines kept; nothing saved", async () => {
    const t = await stationTree();
    const form = await site().form(groupPage(t), editor.cookie, "New checks process");
    const typed = "10min 7.3\n2x 5\n\n1h\n30min -2";
    const r = await post(form, { rate_thresholds: typed, rate_symmetric: "true" }, editor);
    expect(r.status).toBe(200);
    expect(fieldMessages(formHtml(r.text, "New checks process"))).toEqual([
      'Line 2: Time difference: "2x" is not a valid time step. Write a number and a unit, e.g. 10min, 1h (an hour) or 1D (a day).',
      "Line 4: Largest change: This field is required.",
    ]);
    // (A browser sends, and shows again, a text area's lines ended by CR LF.)
    expect(shownValue(r.text, "New checks process", "rate_thresholds")?.replace(/\r\n/g, "\n")).toBe(typed);
    // Once they parse, the rules of the list, by line too.
    const again = await post(form, { rate_thresholds: "10min 7.3\n\n30min -2", rate_symmetric: "true" }, editor);
    expect(fieldMessages(formHtml(again.text, "New checks process"))).toEqual(["Line 3: Largest change: With symmetric thresholds every largest change must be greater than 0."]);
    expect((await processes(t)).filter((p) => p.type === "checks")).toEqual([]);
  });

  it("curve interpolation with no group to write into: the target's help says what to add first", async () => {
    const loner = await person();
    const sid = await f.station({ maintainers: [loner.user.id] });
    const gid = await f.group(sid, { name: "Stage", variableId: variable, unitId: unit });
    await f.series(gid, { type: "Initial", timeStep: "10min" });
    const help = (html: string) => formHtml(html, "New curve interpolation process").replace(/<!-- -->/g, "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
    expect(help((await site().page(groupPage({ sid, gid } as Tree), loner.cookie)).text)).toContain("None to choose yet: first add a group for the interpolated variable");
    await f.group(sid, { name: "Discharge", variableId: variable, unitId: unit });
    const offered = help((await site().page(groupPage({ sid, gid } as Tree), loner.cookie)).text);
    expect(offered).toContain("Its Initial series receives the interpolated values");
    expect(offered).not.toContain("None to choose yet");
  });

  it("curve interpolation: points pasted from a spreadsheet (tabs, decimal commas) or typed `x, y`", async () => {
    const t = await stationTree();
    const discharge = await f.group(t.sid, { name: "Discharge", variableId: variable, unitId: unit });
    const form = await site().form(groupPage(t), editor.cookie, "New curve interpolation process");
    const r = await post(form, {
      target_timeseries_group: String(discharge),
      period_0_start_date: "2020-01-01", period_0_end_date: "2020-12-31", period_0_points: "0,1\t0\r\n0,5\t1,25\r\n\r\n1,2\t4,75\r\n",
    }, editor);
    expectLanded(r, new RegExp(`^/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/processes/\\d+/\\?done=process-created$`));
    const curve = (await processes(t)).find((p) => p.type === "curve_interpolation")!;
    expect(curve.target_timeseries_group).toBe(discharge);
    expect(curve.periods).toEqual([{ start_date: "2020-01-01", end_date: "2020-12-31", points: [[0.1, 0], [0.5, 1.25], [1.2, 4.75]] }]);
    // The process page's form shows the stored points as tab-separated lines, and a second, empty period.
    const page = await site().page(`/manage/stations/${t.sid}/timeseriesgroups/${t.gid}/processes/${curve.id}/`, editor.cookie);
    expect(shownValue(page.text, "Process", "period_0_points")).toBe("0.1\t0\n0.5\t1.25\n1.2\t4.75");
    expect(shownValue(page.text, "Process", "period_1_points")).toBe("");
  });

  it("curve interpolation: the API's messages about points, told by period and line; what was pasted kept", async () => {
    const t = await stationTree();
    const discharge = await f.group(t.sid, { name: "Discharge", variableId: variable, unitId: unit });
    const form = await site().form(groupPage(t), editor.cookie, "New curve interpolation process");
    const points = "0.1, 0\n\n0.5 1.25 3\nabc\n0.1, 4";
    const r = await post(form, {
      target_timeseries_group: String(discharge),
      period_0_start_date: "2020-01-01", period_0_end_date: "2020-12-31", period_0_points: points,
    }, editor);
    expect(r.status).toBe(200);
    expect(fieldMessages(formHtml(r.text, "New curve interpolation process"))).toEqual([
      "Period 1, line 3: A point is a pair of numbers [x, y].",
      "Period 1, line 4: A point is a pair of numbers [x, y].",
    ]);
    expect(shownValue(r.text, "New curve interpolation process", "period_0_points")?.replace(/\r\n/g, "\n")).toBe(points);
    const rules = await post(form, {
      target_timeseries_group: String(discharge),
      period_0_start_date: "2020-01-01", period_0_end_date: "2020-12-31", period_0_points: "0.1, 0\n0.1, 4",
    }, editor);
    expect(fieldMessages(formHtml(rules.text, "New curve interpolation process"))).toEqual(["Period 1, points: Each x may appear only once (0.1 appears twice)."]);
    expect((await processes(t)).filter((p) => p.type === "curve_interpolation")).toEqual([]);
  });
});

describe("the users' password reset and the people form's references", () => {
  it("a password-reset e-mail: anonymous to the login page, a non-superuser the 403 page, a superuser told it was sent", async () => {
    const t = await stationTree();
    const page = `/manage/users/${t.userId}/`;
    const form = await site().form(page, admin.cookie, "Password reset");
    expectLogin(await post(form, {}, null), page);
    expectForbidden(await post(form, {}, other));
    const sent = await post(form, {}, admin);
    expect(sent.status).toBe(200);
    expect(sent.text).toContain(`<p class="message success" role="status">A password-reset e-mail has been sent to the user&#x27;s address.</p>`);
  });

  it("a user's edit: the username rules of auth/user/ and the e-mail rule next to their fields, the input kept; nothing saved", async () => {
    const t = await stationTree();
    const page = `/manage/users/${t.userId}/`;
    const form = await site().form(page, admin.cookie, "User");
    const before = await userNamed(t.username);
    const typed = { username: "has spaces!", email: "not-an-address", first_name: "Kept" };
    const r = await post(form, typed, admin);
    expect(r.status).toBe(200);
    // The API gives the same username message (the profile endpoint shares the rules).
    const answer = await s.http.patch("/api/auth/user/", { token: other.user.token, json: { username: typed.username } });
    expect(answer.status, answer.text).toBe(400);
    expect(messagesOf(r.text, "User", "username")).toEqual(answer.json.username);
    expect(messagesOf(r.text, "User", "email")).toEqual(["Enter a valid email address."]);
    for (const [name, value] of Object.entries(typed)) expect(shownValue(r.text, "User", name), name).toBe(value);
    expect(await userNamed(t.username)).toEqual(before);
    // Another user's name is taken, as in the API.
    const taken = await post(await site().form(page, admin.cookie, "User"), { username: editor.user.username }, admin);
    const apiTaken = await s.http.patch("/api/auth/user/", { token: other.user.token, json: { username: editor.user.username } });
    expect(apiTaken.status).toBe(400);
    expect(messagesOf(taken.text, "User", "username")).toEqual(apiTaken.json.username);
    expect(await userNamed(t.username)).toEqual(before);
  });

  it("maintainers that do not exist: the API's message next to the field; nothing saved", async () => {
    const t = await stationTree();
    const form = await site().form(`/manage/stations/${t.sid}/`, editor.cookie, "Maintainers and data viewers");
    const r = await post(form, { maintainers: ["", String(editor.user.id), "999999"] }, editor);
    expect(r.status).toBe(200);
    expect(fieldMessages(formHtml(r.text, "Maintainers and data viewers"))).toEqual(['Invalid pk "999999" - object does not exist.']);
    expect((await api(station(t))).json.maintainers).toEqual([editor.user.id]);
  });
});
