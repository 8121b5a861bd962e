import { Conflict, NotFound, PermissionDenied, ValidationFailed, type FieldErrors } from "@/lib/services/errors";

/**
 * What a site form shows when a service refuses it: the API's field messages next to their
 * fields (api.md wording), or, under `form`, why the whole form was refused. Null for errors
 * that are not the user's to correct.
 */
export const SESSION_ENDED = "Your session has ended. Log in again.";
export const NOT_ALLOWED = "You do not have permission to perform this action.";

export const GONE = "This no longer exists: someone may have deleted it since you opened the page.";

export function formErrors(error: unknown): FieldErrors | null {
  if (error instanceof ValidationFailed) return error.fields;
  if (error instanceof PermissionDenied) return { form: [error.anonymous ? SESSION_ENDED : error.detail ?? NOT_ALLOWED] };
  if (error instanceof NotFound) return { form: [GONE] };
  if (error instanceof Conflict) return { form: [error.explained] };
  return null;
}
