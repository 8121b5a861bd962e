"use server";

import { redirect } from "next/navigation";
import { queueRun } from "@/lib/replication/sources";
import { NotFound, PermissionDenied, ValidationFailed } from "@/lib/services/errors";
import { currentUser } from "@/lib/site/current-user";
import { TOKEN_FIELD, validFormToken } from "@/lib/site/form-token";
import { queueing } from "@/lib/site/forms";

/**
 * "Run now" on `{site}/manage/replication/`: queues a run of the source as `run/` does
 * (superusers), then shows the page again with what happened: `done=run-queued` (the run is in
 * the source's runs), or `problem=…` when nothing was queued. The outcome travels in the address,
 * not in the form's state, because the form of a source deleted meanwhile is no longer on the page.
 */
export async function runNow(form: FormData): Promise<void> {
  redirect(`/manage/replication/?${await queued(form)}`);
}

async function queued(form: FormData): Promise<string> {
  const id = Number(form.get("source"));
  const user = await currentUser();
  if (!user) return "problem=session-ended";
  if (!validFormToken(user.sessionId, form.get(TOKEN_FIELD))) return "problem=form-expired";
  try {
    if (!Number.isSafeInteger(id)) throw new NotFound();
    await queueing("a replication run", () => queueRun(user, id, {}));
    return `done=run-queued#source-${id}`;
  } catch (error) {
    if (error instanceof NotFound) return "problem=source-gone";
    if (error instanceof PermissionDenied) return "problem=not-allowed";
    if (error instanceof ValidationFailed) return "problem=not-queued";
    throw error;
  }
}
