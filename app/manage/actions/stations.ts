"use server";

import { type AttachmentKind, type AttachmentValues, createAttachment, createEvent, createStation, deleteAttachment, deleteEvent, deleteStation, type EventData, findAttachment, findEvent, geomField, type NewContent, readAttachmentInput, readEventInput, readStationInput, stationAccess, type StationData, stationJsonById, updateAttachment, updateEvent, updateStation } from "@/lib/stations";
import { userChoices, usernames } from "@/lib/accounts";
import { canCreateStation, isEditor } from "@/lib/auth/permissions";
import { attachmentValues, eventValues, geomText, type OwnerChoice, ownerChoices, ownerDisplayName, stationValues } from "@/lib/manage";
import { currentUser } from "@/lib/site/current-user";
import type { FormState, FormValues } from "@/lib/site/form-state";
import { boundId, formInput, openedAt, submitForm } from "@/lib/site/manage-form";
import { managePaths as paths } from "@/lib/site/manage-paths";

/**
 * The forms of a station's pages (management.md §2): the station, its maintainers and data viewers, its files, images and events; the owner and user searches and the map picker of its form.
 * Each is a POST that the session's form token protects (lib/site/manage-form.ts), reads the
 * form with the API's field readers and changes data through the API's services, which check the
 * permissions. Ids bound by the pages arrive from the browser like any other input: they are
 * checked like path ids.
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
