/** Ids are 32-bit integer columns: a larger number names no object (and must not reach PostgreSQL). */
export function isDatabaseId(id: number): boolean {
  return Number.isSafeInteger(id) && id >= 1 && id <= 2_147_483_647;
}
