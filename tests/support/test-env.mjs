/**
 * Settings every test process and test server gets (vitest.config.ts, playwright.config.ts).
 * - ENHYDRIS_PASSWORD_HASH_COST at its lowest: the suites create thousands of users and log in
 *   as often, and at the default cost each hash took ~150 ms of a core. The cost itself is tested
 *   in tests/unit/passwords.test.ts.
 * - ENHYDRIS_SOURCE_MAPS off: reading every module's source map took 0.6 s of CPU at each of the
 *   suites' ~300 server starts, for stack traces no test reads.
 * (A .mjs file: both configs read it.)
 * @type {Readonly<Record<string, string>>}
 */
export const TEST_ENV = { ENHYDRIS_PASSWORD_HASH_COST: "10", ENHYDRIS_SOURCE_MAPS: "0" };
