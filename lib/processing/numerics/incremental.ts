/**
 * What the incremental engines share. A run replaces the target from `targetFrom` on with
 * what it computes from the source records from `sourceFrom` on; −Infinity means from the
 * start (a run from scratch). The result equals one run over the whole current source
 * (processing.md §4) when the stored target is what the previous run left.
 */

export interface IncrementalPlan {
  /** Read the source records with timestamp ≥ sourceFrom. */
  readonly sourceFrom: number;
  /** Replace the target records with timestamp ≥ targetFrom by the run's result. */
  readonly targetFrom: number;
}

export const FROM_SCRATCH: IncrementalPlan = { sourceFrom: -Infinity, targetFrom: -Infinity };

/**
 * The stored target does not hold what a previous run would have written (it was edited, or
 * a run was lost): an incremental run cannot be exact, so the caller runs from scratch.
 */
export class IncrementalContextError extends Error {
  override readonly name = "IncrementalContextError";
}
