/**
 * Settings every test process and test server gets (vitest.config.ts, playwright.config.ts).
 * ENHYDRIS_PASSWORD_HASH_COST at its lowest: the suites create thousands of users and log in as
 * often, and at the default cost each hash took ~150 ms of a core (some 10% of a run). The cost
 * itself is tested in tests/unit/passwords.test.ts.
 * (A .mjs file: both configs read it.)
 * @type {Readonly<Record<string, string>>}
 */
export const TEST_ENV = { ENHYDRIS_PASSWORD_HASH_COST: "10" };
