import { isDatabaseUnavailable, isStorageFull } from "@/lib/db/errors";
import { logError } from "@/lib/observability/log";
import { Conflict, DomainError, NotFound, PermissionDenied, ValidationFailed, type FieldErrors } from "@/lib/domain/errors";

/**
 * What a site form shows when a service refuses it: the API's field messages next to their
 * fields (api.md wording), or, under `form`, why the whole form was refused. Null for errors
 * that are not the user's to correct.
 */
export const SESSION_ENDED = "Your session has ended. Log in again.";
/** A form whose token (lib/site/form-token.ts) is not the session's. */
export const FORM_EXPIRED = "This form has expired (you have logged in again since it was opened). Submit it again.";
export const NOT_ALLOWED = "You do not have permission to perform this action.";

export const GONE = "This no longer exists: someone may have deleted it since you opened the page.";

/** A change refused for want of disk space, or with the database out of reach: undone, and the form keeps what was typed. */
export const NO_ROOM = "The server has no room left to store data, so nothing was saved. Try again later; what you entered is still here.";
export const UNREACHABLE = "The database cannot be reached at the moment, so nothing was saved. Try again in a moment; what you entered is still here.";

export const NOT_QUEUED = "The run could not be queued: the server could not store it. Nothing has been queued; try again in a moment.";

/**
 * Queues a run for a page's "Run now": a failure that is not a refusal of the services (the
 * database unreachable, …) is logged and becomes a refusal with NOT_QUEUED, which the page
 * shows, instead of an error page.
 */
export async function queueing<T>(what: string, queue: () => Promise<T>): Promise<T> {
  try {
    return await queue();
  } catch (error) {
    if (error instanceof DomainError) throw error;
    logError(`queueing ${what}`, error);
    throw ValidationFailed.nonField(NOT_QUEUED);
  }
}

export function formErrors(error: unknown): FieldErrors | null {
  if (error instanceof ValidationFailed) return error.fields;
  if (error instanceof PermissionDenied) return { form: [error.anonymous ? SESSION_ENDED : error.detail ?? NOT_ALLOWED] };
  if (error instanceof NotFound) return { form: [GONE] };
  if (error instanceof Conflict) return { form: [error.explained] };
  if (isStorageFull(error)) {
    logError("a site form: no disk space left", error);
    return { form: [NO_ROOM] };
  }
  if (isDatabaseUnavailable(error)) {
    logError("a site form: database unavailable", error);
    return { form: [UNREACHABLE] };
  }
  return null;
}
