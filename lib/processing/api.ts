import { groupPaths } from "@/lib/series";
import { listResponse, writeMode } from "@/lib/http/handlers";
import { readProcess, readRunRequest } from "@/lib/processing/fields";
import { json, noContent } from "@/lib/http/respond";
import type { Route, RouteContext } from "@/lib/routing/router";
import {
  countProcesses, createProcess, deleteProcess, pathGroup, pathProcess, processesJson, processesPage, processJson, processRuns, requestRun,
  updateProcess, type GroupPath, type ProcessPath,
} from "@/lib/processing/processes";

/** `…/timeseriesgroups/{gid}/processes/` (processing.md §1). */

function groupPath(ctx: RouteContext): GroupPath {
  return { stationId: ctx.params.sid, groupId: ctx.params.gid };
}

function processPath(ctx: RouteContext): ProcessPath {
  return { ...groupPath(ctx), processId: ctx.params.pid };
}

async function listProcesses(ctx: RouteContext): Promise<Response> {
  const found = await pathGroup(groupPath(ctx));
  return listResponse(ctx, await countProcesses(found.group.id),
    async (offset, limit) => processesJson(await processesPage(found.group.id, offset, limit), ctx.auth.user, found.station));
}

async function getProcess(ctx: RouteContext): Promise<Response> {
  return json(await processJson(await pathProcess(processPath(ctx)), ctx.auth.user));
}

async function createProcessHandler(ctx: RouteContext): Promise<Response> {
  const id = await createProcess(ctx.auth.user, groupPath(ctx), async () => readProcess(await ctx.input(), "create"));
  return json(await processJson(await pathProcess({ ...groupPath(ctx), processId: id }), ctx.auth.user), 201);
}

async function updateProcessHandler(ctx: RouteContext): Promise<Response> {
  await updateProcess(ctx.auth.user, processPath(ctx), async (found) => readProcess(await ctx.input(), writeMode(ctx), found.process));
  return json(await processJson(await pathProcess(processPath(ctx)), ctx.auth.user));
}

async function deleteProcessHandler(ctx: RouteContext): Promise<Response> {
  await deleteProcess(ctx.auth.user, processPath(ctx));
  return noContent();
}

async function listRuns(ctx: RouteContext): Promise<Response> {
  const runs = await processRuns(ctx.auth.user, processPath(ctx));
  return listResponse(ctx, runs.count, runs.page);
}

/** 202 with the queued run; with `wait`, 200 with the run once it has finished (202 after 60 s). */
async function runHandler(ctx: RouteContext): Promise<Response> {
  const { run, finished } = await requestRun(ctx.auth.user, processPath(ctx), async () => readRunRequest(await ctx.input()));
  return json(run, finished ? 200 : 202);
}

/** The routes under a group's path. */
export function processRoutes(group: string): Route[] {
  const base = `${group}processes/`;
  return [
    { path: base, handlers: { GET: listProcesses, POST: createProcessHandler } },
    { path: `${base}:pid/`, handlers: { GET: getProcess, PUT: updateProcessHandler, PATCH: updateProcessHandler, DELETE: deleteProcessHandler } },
    { path: `${base}:pid/runs/`, handlers: { GET: listRuns } },
    { path: `${base}:pid/run/`, handlers: { POST: runHandler } },
  ];
}

/** The processes of every group (processing.md §1), under both words of a group's path. */
export function processingRoutes(): Route[] {
  return groupPaths().flatMap(processRoutes);
}
