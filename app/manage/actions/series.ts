"use server";

import { createGroup, createSeries, deleteGroup, deleteSeries, findGroup, type GroupData, readGroupInput, readSeriesInput, seriesAt, type SeriesData, updateGroup, updateSeries } from "@/lib/series";
import { groupValues, seriesValues } from "@/lib/manage";
import type { FormState } from "@/lib/site/form-state";
import { boundId, formInput, openedAt, submitForm } from "@/lib/site/manage-form";
import { managePaths as paths } from "@/lib/site/manage-paths";
import { typeName } from "@/lib/domain/timeseries-types";

/**
 * The forms of a station's time series groups and their series (management.md §2).
 * Each is a POST that the session's form token protects (lib/site/manage-form.ts), reads the
 * form with the API's field readers and changes data through the API's services, which check the
 * permissions. Ids bound by the pages arrive from the browser like any other input: they are
 * checked like path ids.
 */

const id = boundId;

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
