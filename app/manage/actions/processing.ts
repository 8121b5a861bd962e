"use server";

import { createProcess, deleteProcess, lineMessages, pathProcess, processInput, processValues, readProcess, readRunRequest, requestRun, updateProcess } from "@/lib/processing";
import { NotFound } from "@/lib/domain/errors";
import type { FormState } from "@/lib/site/form-state";
import { boundId, formInput, openedAt, submitForm } from "@/lib/site/manage-form";
import { queueing } from "@/lib/site/forms";
import { requestLocale } from "@/lib/site/locale";
import { managePaths as paths } from "@/lib/site/manage-paths";

/**
 * The forms of a group's processes (processing.md §1, management.md §2): the API's reader and service, from the reference-style fields; run now.
 * Each is a POST that the session's form token protects (lib/site/manage-form.ts), reads the
 * form with the API's field readers and changes data through the API's services, which check the
 * permissions. Ids bound by the pages arrive from the browser like any other input: they are
 * checked like path ids.
 */

const id = boundId;

/** A process form's answer, its messages about typed lines told by line number. */
async function processFormState(state: FormState, form: FormData): Promise<FormState> {
  return { ...state, errors: lineMessages(state.errors, form, await requestLocale()) };
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
