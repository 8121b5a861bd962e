/**
 * The errors of the domain, with no HTTP in them: services, field validation and account
 * operations raise these, and each caller turns them into what it shows. The API's one wrapper
 * (lib/routing/router.ts) maps them to the bodies of api.md §1.6 (docs/decisions/0008).
 */
export type FieldErrors = Record<string, string[]>;

export class DomainError extends Error {}

/** An object that the caller named does not exist (404). */
export class NotFound extends DomainError {
  constructor(readonly detail = "Not found.") {
    super(detail);
  }
}

/**
 * The actor may not do this: anonymous actors are asked to authenticate (401), known users are
 * refused (403, with `detail` when given).
 */
export class PermissionDenied extends DomainError {
  constructor(readonly anonymous: boolean, readonly detail?: string) {
    super(detail ?? (anonymous ? "authentication required" : "permission denied"));
  }
}

/** Field errors (400); object-level ones under `non_field_errors`. */
export class ValidationFailed extends DomainError {
  constructor(readonly fields: FieldErrors) {
    super(Object.values(fields).flat().join(" "));
  }

  static field(name: string, ...messages: string[]): ValidationFailed {
    return new ValidationFailed({ [name]: messages });
  }

  static nonField(message: string): ValidationFailed {
    return new ValidationFailed({ non_field_errors: [message] });
  }
}

/**
 * The state of other objects forbids the change (409), e.g. deleting a lookup still referred to.
 * `explained` is what the site's pages show: the same, or more where the API's `detail` is fixed
 * by the spec (e.g. which objects refer to the lookup).
 */
export class Conflict extends DomainError {
  constructor(readonly detail: string, readonly explained: string = detail) {
    super(detail);
  }
}

/**
 * The object changed since the caller read it (an edit form's `last_modified` is not the stored
 * one): the change is refused so that nobody's update is lost silently (management.md §1).
 */
export class StaleObject extends Conflict {
  constructor(readonly what: string) {
    super(`This ${what} was changed by someone else since you opened it.`);
  }
}

/** Too many failed logins: try again after `retryAfter` seconds (429). */
export class Throttled extends DomainError {
  constructor(readonly retryAfter: number) {
    super(`throttled for ${retryAfter} s`);
  }
}

/** Collects field errors in the order they are found, for one ValidationFailed. */
export class ErrorCollector {
  readonly errors: FieldErrors = {};

  add(field: string, message: string | string[]): void {
    (this.errors[field] ??= []).push(...(Array.isArray(message) ? message : [message]));
  }

  has(field?: string): boolean {
    return field ? field in this.errors : Object.keys(this.errors).length > 0;
  }

  throwIfAny(): void {
    if (this.has()) throw new ValidationFailed(this.errors);
  }
}

/** The value, or NotFound when there is none. */
export function orNotFound<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new NotFound();
  return value;
}
