"use server";

import { refresh } from "next/cache";
import { queueRun } from "@/lib/replication/sources";
import { currentUser } from "@/lib/site/current-user";

/** "Run now" on `{site}/manage/replication/`: queues a run of the source as `run/` does (superusers). */
export async function runNow(form: FormData): Promise<void> {
  const user = await currentUser();
  const id = Number(form.get("source"));
  if (!user || !Number.isSafeInteger(id)) return;
  await queueRun(user, id, {}).catch(() => undefined);
  refresh();
}
