"use server";

import { headers } from "next/headers";
import {
  type AttachmentKind, type AttachmentValues, createAttachment, createEvent, createStation, deleteAttachment, deleteEvent, deleteStation, type EventData, findAttachment, findEvent, geomField, type NewContent, readAttachmentInput, readEventInput, readStationInput, stationAccess, type StationData, stationJsonById, updateAttachment, updateEvent, updateStation,
} from "@/lib/stations";
import { createLookup, deleteLookup, LOOKUP_NAMES, type LookupName, lookupReaders, readLookupInput, updateLookup } from "@/lib/lookups";
import {
  createProcess, deleteProcess, lineMessages, pathProcess, processInput, processValues, readProcess, readRunRequest, requestRun, updateProcess,
} from "@/lib/processing";
import {
  createGroup, createSeries, deleteGroup, deleteSeries, findGroup, type GroupData, readGroupInput, readSeriesInput, seriesAt, type SeriesData, updateGroup, updateSeries,
} from "@/lib/series";
import {
  createUserBy, readUserAdminInput, sendPasswordReset, updateUserBy, type UserAdminData, userChoices, usernames,
} from "@/lib/accounts";
import { canCreateStation, isEditor } from "@/lib/auth/permissions";
import { siteRoot } from "@/lib/http/urls";
import { NotFound } from "@/lib/domain/errors";
import {
  attachmentValues, eventValues, geomText, groupValues, lookupValues, type OwnerChoice, ownerChoices, ownerDisplayName, seriesValues, stationValues,
} from "@/lib/manage";
import { currentUser } from "@/lib/site/current-user";
import type { FormState, FormValues } from "@/lib/site/form-state";
import { boundId, formInput, openedAt, submitForm } from "@/lib/site/manage-form";
import { queueing } from "@/lib/site/forms";
import { managePaths as paths } from "@/lib/site/manage-paths";
import { typeName } from "@/lib/domain/timeseries-types";

/**
 * The server actions of the management pages (management.md §2): each is a POST that the
 * session's form token protects (lib/site/manage-form.ts), reads the form with the API's field
 * readers and changes data through the API's services, which check the permissions. Ids bound
 * by the pages arrive from the browser like any other input: they are checked like path ids.
 */

type Id = number;
const id = boundId;

/** The station form's input: `geom` from the typed x, y and SRID, and `original_srid` kept when the point did not move. */
function stationInput(form: FormData) {
  const text = (name: string) => {
    const v = form.get(name);
    return typeof v === "string" ? v : "";
  };
  const extra: Record<string, string> = {};
  if (text("geom_x").trim() || text("geom_y").trim()) {
    extra.geom = geomText(text("geom_x"), text("geom_y"), text("geom_srid"));
    if (form.has("geom_initial") && extra.geom === text("geom_initial")) extra.original_srid = text("stored_original_srid");
  }
  return formInput(form, extra);
}

async function storedStationValues(sid: Id): Promise<FormValues | null> {
  const station = await stationJsonById(sid);
  if (!station) return null;
  const people = Object.fromEntries(await usernames([...station.maintainers, ...station.data_viewers]));
  return stationValues(station, await ownerDisplayName(station.owner), people);
}

export async function saveStation(sidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  if (sidValue === null) {
    return submitForm(prev, form, async (user) => {
      const sid = await createStation(user, async () => (await readStationInput(stationInput(form), "create")) as StationData);
      return `${paths.station(sid)}?done=created`;
    });
  }
  const sid = id(sidValue);
  return submitForm(prev, form, async (user) => {
    await updateStation(user, sid, () => readStationInput(stationInput(form), "replace"), { unchangedSince: openedAt(form) });
    return `${paths.station(sid)}?done=saved`;
  }, () => storedStationValues(sid));
}

/** The maintainers and data viewers of a station: only those two fields (a PATCH). */
export async function savePeople(sidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const sid = id(sidValue);
  return submitForm(prev, form, async (user) => {
    const input = formInput(form);
    await updateStation(user, sid, async () => {
      const data = await readStationInput(input, "update");
      return { maintainers: data.maintainers, dataViewers: data.dataViewers };
    }, { unchangedSince: openedAt(form) });
    return `${paths.station(sid)}?done=people#people`;
  }, () => storedStationValues(sid));
}

export async function removeStation(sidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const sid = id(sidValue);
  return submitForm(prev, form, async (user) => {
    await deleteStation(user, sid);
    return "/manage/?done=station-deleted";
  });
}

export async function addGroup(sidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const sid = id(sidValue);
  return submitForm(prev, form, async (user) => {
    const gid = await createGroup(user, sid, async (station) => (await readGroupInput(formInput(form), "create", station.id)) as GroupData);
    return `${paths.group(sid, gid)}?done=created`;
  });
}

export async function saveGroup(sidValue: unknown, gidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const [sid, gid] = [id(sidValue), id(gidValue)];
  return submitForm(prev, form, async (user) => {
    await updateGroup(user, sid, gid, (station) => readGroupInput(formInput(form), "replace", station.id), { unchangedSince: openedAt(form) });
    return `${paths.group(sid, gid)}?done=saved`;
  }, async () => {
    const group = await findGroup(sid, gid);
    return group && groupValues(group);
  });
}

export async function removeGroup(sidValue: unknown, gidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const [sid, gid] = [id(sidValue), id(gidValue)];
  return submitForm(prev, form, async (user) => {
    await deleteGroup(user, sid, gid);
    return `${paths.station(sid)}?done=group-deleted#groups`;
  });
}

export async function addSeries(sidValue: unknown, gidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const [sid, gid] = [id(sidValue), id(gidValue)];
  return submitForm(prev, form, async (user) => {
    const tid = await createSeries(user, sid, gid, async (group) => (await readSeriesInput(formInput(form), "create", group.id)) as SeriesData);
    return `${paths.group(sid, gid)}?done=series-created#series-${tid}`;
  });
}

export async function saveSeries(sidValue: unknown, gidValue: unknown, tidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const [sid, gid, tid] = [id(sidValue), id(gidValue), id(tidValue)];
  const path = { stationId: sid, groupId: gid, seriesId: tid };
  return submitForm(prev, form, async (user) => {
    await updateSeries(user, path, (series) => readSeriesInput(formInput(form), "replace", series.groupId), { unchangedSince: openedAt(form) });
    return `${paths.group(sid, gid)}?done=series-saved#series-${tid}`;
  }, async () => {
    const t = await seriesAt(path).catch(() => null);
    return t && seriesValues({
      id: t.id, lastModified: t.lastModified?.toISOString() ?? null, type: typeName(t.type), timeStep: t.timeStep, name: t.name,
      publiclyAvailable: t.publiclyAvailable, count: t.recordCount, first: null, last: null,
    });
  });
}

export async function removeSeries(sidValue: unknown, gidValue: unknown, tidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const [sid, gid, tid] = [id(sidValue), id(gidValue), id(tidValue)];
  return submitForm(prev, form, async (user) => {
    await deleteSeries(user, { stationId: sid, groupId: gid, seriesId: tid });
    return `${paths.group(sid, gid)}?done=series-deleted`;
  });
}

/** A process form's answer, its messages about typed lines told by line number. */
function processFormState(state: FormState, form: FormData): FormState {
  return { ...state, errors: lineMessages(state.errors, form) };
}

/** Processes of a group (processing.md §1): the API's reader and service, from the reference-style fields. */
export async function addProcess(sidValue: unknown, gidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const path = { stationId: id(sidValue), groupId: id(gidValue) };
  return processFormState(await submitForm(prev, form, async (user) => {
    const pid = await createProcess(user, path, () => readProcess(processInput(form), "create"));
    return `${paths.process(path.stationId, path.groupId, pid)}?done=process-created`;
  }), form);
}

export async function saveProcess(sidValue: unknown, gidValue: unknown, pidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const path = { stationId: id(sidValue), groupId: id(gidValue), processId: id(pidValue) };
  return processFormState(await submitForm(prev, form, async (user) => {
    await updateProcess(user, path, (found) => readProcess(processInput(form), "replace", found.process), { unchangedSince: openedAt(form) });
    return `${paths.process(path.stationId, path.groupId, path.processId)}?done=process-saved`;
  }, async () => {
    const found = await pathProcess(path).catch(() => null);
    return found && processValues(found.process);
  }), form);
}

export async function removeProcess(sidValue: unknown, gidValue: unknown, pidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const path = { stationId: id(sidValue), groupId: id(gidValue), processId: id(pidValue) };
  return submitForm(prev, form, async (user) => {
    await deleteProcess(user, path);
    return `${paths.group(path.stationId, path.groupId)}?done=process-deleted#processes`;
  });
}

/** Run now, or from scratch (a hidden `from_scratch`): queued, not waited for; the page then shows the run. */
export async function runProcess(sidValue: unknown, gidValue: unknown, pidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const path = { stationId: id(sidValue), groupId: id(gidValue), processId: id(pidValue) };
  return submitForm(prev, form, async (user) => {
    try {
      const { run } = await queueing("a process run", () => requestRun(user, path, async () => ({ ...(await readRunRequest(formInput(form))), wait: false })));
      return `${paths.process(path.stationId, path.groupId, path.processId)}?done=run-queued#run-${run.id}`;
    } catch (error) {
      // Deleted meanwhile: its form is no longer on the page to say so, the group's page does.
      if (error instanceof NotFound) return `${paths.group(path.stationId, path.groupId)}?problem=process-gone#processes`;
      throw error;
    }
  });
}

/** Files, images and events: the station's attachments of management.md §2. */
export type ChildKind = AttachmentKind | "events";

function childKind(value: unknown): ChildKind {
  return value === "files" || value === "images" || value === "events" ? value : "files";
}

export async function addChild(kindValue: unknown, sidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const [kind, sid] = [childKind(kindValue), id(sidValue)];
  return submitForm(prev, form, async (user) => {
    const input = formInput(form);
    if (kind === "events") {
      await createEvent(user, sid, async (station) => (await readEventInput(input, "create", station.id)) as EventData & { date: string; typeId: number });
    } else {
      await createAttachment(user, kind, sid, async (station) => (await readAttachmentInput(kind, input, "create", station.id)) as AttachmentValues & { content: NewContent });
    }
    return `${paths.station(sid)}?done=${kind}-added#${kind}`;
  });
}

async function storedChild(kind: ChildKind, sid: Id, childId: Id): Promise<FormValues | null> {
  if (kind === "events") {
    const event = await findEvent(sid, childId);
    return event && eventValues(event);
  }
  const row = await findAttachment(kind, sid, childId);
  return row && attachmentValues(row);
}

export async function saveChild(kindValue: unknown, sidValue: unknown, childValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const [kind, sid, childId] = [childKind(kindValue), id(sidValue), id(childValue)];
  return submitForm(prev, form, async (user) => {
    const input = formInput(form);
    const options = { unchangedSince: openedAt(form) };
    if (kind === "events") await updateEvent(user, sid, childId, (station) => readEventInput(input, "replace", station.id), options);
    else await updateAttachment(user, kind, sid, childId, (station) => readAttachmentInput(kind, input, "replace", station.id), options);
    return `${paths.station(sid)}?done=${kind}-saved#${kind}`;
  }, () => storedChild(kind, sid, childId));
}

export async function removeChild(kindValue: unknown, sidValue: unknown, childValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const [kind, sid, childId] = [childKind(kindValue), id(sidValue), id(childValue)];
  return submitForm(prev, form, async (user) => {
    if (kind === "events") await deleteEvent(user, sid, childId);
    else await deleteAttachment(user, kind, sid, childId);
    return `${paths.station(sid)}?done=${kind}-deleted#${kind}`;
  });
}

function lookupName(value: unknown): LookupName {
  return (LOOKUP_NAMES as readonly unknown[]).includes(value) ? (value as LookupName) : "stationtypes";
}

export async function addLookup(nameValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const name = lookupName(nameValue);
  return submitForm(prev, form, async (user) => {
    await createLookup(user, name, () => readLookupInput(name, formInput(form), "create"));
    return `${paths.lookup(name)}?done=created`;
  });
}

export async function saveLookup(nameValue: unknown, idValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const [name, objectId] = [lookupName(nameValue), id(idValue)];
  return submitForm(prev, form, async (user) => {
    await updateLookup(user, name, objectId, () => readLookupInput(name, formInput(form), "replace"), { unchangedSince: openedAt(form) });
    return `${paths.lookup(name)}?done=saved`;
  }, async () => {
    const json = await lookupReaders()[name].get(objectId);
    return json && lookupValues(json as Record<string, unknown>);
  });
}

export async function removeLookup(nameValue: unknown, idValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const [name, objectId] = [lookupName(nameValue), id(idValue)];
  return submitForm(prev, form, async (user) => {
    await deleteLookup(user, name, objectId);
    return `${paths.lookup(name)}?done=deleted`;
  });
}

export async function addUser(prev: FormState, form: FormData): Promise<FormState> {
  return submitForm(prev, form, async (user) => {
    const uid = await createUserBy(user, async () => (await readUserAdminInput(formInput(form), 0, "create")) as UserAdminData & { username: string });
    return `${paths.user(uid)}?done=created`;
  });
}

export async function saveUser(idValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const uid = id(idValue);
  return submitForm(prev, form, async (user) => {
    await updateUserBy(user, uid, () => readUserAdminInput(formInput(form), uid, "replace"));
    return `${paths.user(uid)}?done=saved`;
  });
}

export async function mailPasswordReset(idValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const uid = id(idValue);
  return submitForm(prev, form, async (user) => {
    const h = await headers();
    // {site} for the link: ENHYDRIS_SITE_URL, else this request's origin (api.md §13).
    await sendPasswordReset(user, uid, siteRoot(new Request(`http://${h.get("host") ?? "localhost"}/`, { headers: new Headers(h) })));
    return { message: "A password-reset e-mail has been sent to the user's address." };
  });
}

/** The owner search of the station form: organizations and persons whose names contain `q`. */
export async function findOwners(q: unknown): Promise<OwnerChoice[]> {
  if (!(await currentUser()) || typeof q !== "string") return [];
  return ownerChoices(q.slice(0, 100), 20);
}

/**
 * The user search of a station's maintainers and data viewers: for editors of that station (or,
 * for a new station, for those who may create one); usernames and names only.
 */
export async function findUsers(sidValue: unknown, q: unknown): Promise<{ id: number; username: string; name: string }[]> {
  const user = await currentUser();
  if (!user || typeof q !== "string") return [];
  const access = sidValue === null ? null : await stationAccess(id(sidValue));
  if (access ? !isEditor(user, access) : !canCreateStation(user)) return [];
  return userChoices(q.slice(0, 100), 20);
}

/** The map picker's view of typed coordinates: the API's reading of `geom` (api.md §4.2), or its message. */
export async function locate(x: unknown, y: unknown, srid: unknown): Promise<{ lon: number; lat: number } | { error: string }> {
  if (!(await currentUser())) return { error: "" };
  const parsed = geomField().parse(geomText(String(x ?? ""), String(y ?? ""), String(srid ?? "")));
  return parsed.ok ? { lon: parsed.value.lon, lat: parsed.value.lat } : { error: parsed.errors[0] };
}
