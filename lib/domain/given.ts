/**
 * What a write service is given to write: the values themselves, or a function that produces
 * them. A service calls the function only after it has found the objects named and checked the
 * permission, so that the API reads and validates a request's body after those checks, in the
 * order of api.md §1.7; the function receives what the service found (the station, the series…)
 * for the checks that depend on it. Callers that already hold the values (a form that validated
 * them, a script, a job) pass them directly.
 */
export type Given<T, Found = void> = T | ((found: Found) => Promise<T>);

export function valuesOf<T, Found>(given: Given<T, Found>, found: Found): Promise<T> {
  return typeof given === "function" ? (given as (found: Found) => Promise<T>)(found) : Promise.resolve(given);
}
