import { z } from "zod";
import { listResponse, writeMode } from "@/lib/http/handlers";
import type { RequestInput } from "@/lib/http/body";
import { boolean, integer, text, validatedFields, type Field, type WriteMode } from "@/lib/http/fields";
import { json, noContent } from "@/lib/http/respond";
import { getJob, waitForJob } from "@/lib/jobs/queue";
import type { Route, RouteContext } from "@/lib/routing/router";
import { normalizeSourceUrl } from "@/lib/replication/remote";
import {
  countSources, createSource, deleteSource, detachStation, getSource, lastRun, queueRun, runJson, sourceJson, sourceRuns,
  sourcesPage, updateSource, type SourceValues,
} from "@/lib/replication/sources";
import { stationJsonById } from "@/lib/stations";

/** replication/sources/ (replication.md §1, superusers) and stations/{sid}/detach/. */

/** How long `run/` with `wait` waits for the run to finish before it answers 202 with the run as it is. */
const RUN_WAIT_MS = 60_000;

/** The source's site root: http or https, no credentials in it. */
function urlField(): Field<string> {
  return {
    required: true,
    parse(raw) {
      if (raw === null) return { ok: false, errors: ["This field may not be null."] };
      const url = typeof raw === "string" ? normalizeSourceUrl(raw) : null;
      if (url === null || url.length > 500) return { ok: false, errors: ["Enter a valid URL."] };
      return { ok: true, value: url };
    },
    schema: z.string().meta({ description: "The other instance's site root, e.g. https://example.org/", example: "https://example.org/" }),
  };
}

/** Seconds between scheduled runs: 0 (only on demand) or at least 60. */
function intervalField(): Field<number> {
  const base = integer({ min: 0, default: 0 }) as Field<number>;
  return {
    ...base,
    parse(raw) {
      const parsed = base.parse(raw);
      if (parsed.ok && parsed.value > 0 && parsed.value < 60) return { ok: false, errors: ["Ensure this value is 0 (only on demand) or at least 60."] };
      return parsed;
    },
  };
}

export const sourceFields = () => ({
  name: text({ max: 200 }),
  url: urlField(),
  username: text({ max: 150 }),
  password: text({ trim: false, max: 500 }),
  token: text({ max: 500 }),
  query: text({ max: 1000 }),
  interval: intervalField(),
  enabled: boolean({ default: true }),
  prune: boolean({ default: false }),
});

export const runFields = () => ({
  wait: boolean({ default: false }),
  prune: boolean({ default: false }),
  dry_run: boolean({ default: false }),
});

const CREDENTIALS_CLASH = "Give either a username and password or a token, not both.";

/** A source's fields as the API and the management site's form read them (one set of rules for both). */
export async function readSourceInput(input: RequestInput, mode: WriteMode): Promise<Partial<SourceValues>> {
  const values = await validatedFields(input, sourceFields(), mode, (v, errors) => {
    if (v.token && v.username) errors.add("non_field_errors", CREDENTIALS_CLASH);
  });
  return values as Partial<SourceValues>;
}

function readSource(ctx: RouteContext) {
  return async (): Promise<Partial<SourceValues>> => readSourceInput(await ctx.input(), writeMode(ctx));
}

const sourceOf = async (ctx: RouteContext) => sourceJson(await getSource(ctx.auth.user, ctx.params.id), await lastRun(ctx.params.id));

export function replicationRoutes(): Route[] {
  return [
    {
      path: "replication/sources/",
      handlers: {
        GET: async (ctx) => listResponse(ctx, await countSources(ctx.auth.user), async (skip, take) =>
          Promise.all((await sourcesPage(ctx.auth.user, skip, take)).map(async (s) => sourceJson(s, await lastRun(s.id))))),
        POST: async (ctx) => {
          const id = await createSource(ctx.auth.user, readSource(ctx) as () => Promise<SourceValues>);
          return json(await sourceOf({ ...ctx, params: { id } }), 201);
        },
      },
    },
    {
      path: "replication/sources/:id/",
      handlers: {
        GET: async (ctx) => json(await sourceOf(ctx)),
        PUT: async (ctx) => {
          await updateSource(ctx.auth.user, ctx.params.id, readSource(ctx));
          return json(await sourceOf(ctx));
        },
        PATCH: async (ctx) => {
          await updateSource(ctx.auth.user, ctx.params.id, readSource(ctx));
          return json(await sourceOf(ctx));
        },
        DELETE: async (ctx) => {
          await deleteSource(ctx.auth.user, ctx.params.id);
          return noContent();
        },
      },
    },
    {
      path: "replication/sources/:id/run/",
      handlers: {
        POST: async (ctx) => {
          await getSource(ctx.auth.user, ctx.params.id);
          const body = await validatedFields(await ctx.input(), runFields(), "create");
          const job = await queueRun(ctx.auth.user, ctx.params.id, { prune: body.prune === true, dryRun: body.dry_run === true });
          if (!body.wait) return json(runJson(job), 202);
          const done = await waitForJob(job.id, RUN_WAIT_MS);
          return done ? json(runJson(done), 200) : json(runJson((await getJob(job.id)) ?? job), 202);
        },
      },
    },
    {
      path: "replication/sources/:id/runs/",
      handlers: {
        GET: async (ctx) => {
          const runs = (await sourceRuns(ctx.auth.user, ctx.params.id)).map(runJson);
          return listResponse(ctx, runs.length, async (skip, take) => runs.slice(skip, skip + take));
        },
      },
    },
    {
      path: "stations/:sid/detach/",
      handlers: {
        POST: async (ctx) => {
          await detachStation(ctx.auth.user, ctx.params.sid);
          return json(await stationJsonById(ctx.params.sid));
        },
      },
    },
  ];
}
