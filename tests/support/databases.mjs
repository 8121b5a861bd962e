/**
 * HTTP test files that run on SQLite alone, each with the reason. What they test is the HTTP
 * edge (headers, host and origin checks, form tokens, start-up refusals, bodies that stop or
 * cannot be read), settled before any query the database's dialect could change: a second run
 * on PostgreSQL would test nothing new. vitest.config.ts leaves them out when
 * TEST_DATABASE=postgres, and `npm test` names them in its summary.
 *
 * Only a file whose every test is of that kind belongs here. A test that reads or writes data in
 * a way a dialect could change (ordering, text matching, types, transactions, locks, what a
 * failed write leaves) stays on both databases: move it to a file that runs on both rather than
 * list its file.
 * (A .mjs file: scripts/test.mjs reads it too.)
 * @type {Readonly<Record<string, string>>}
 */
export const SQLITE_ONLY = {
  "tests/http/security.test.ts": "response headers, CORS and what the logs leave out: set before any query",
  "tests/http/manage-form-tokens.test.ts": "a management form's token is checked before the form's data is read",
  "tests/http/next-internals.test.ts": "what the server relies on in Next's behaviour, before any query",
  "tests/http/jobs-priority.test.ts": "the job process's priority, set by the process at its start, before any query",
  "tests/http/hardening.test.ts": "host, origin and referer checks, security headers, start-up refusals and bodies that stop arriving: settled before any query (its one data test, the flags' length, is in data-upload.test.ts)",
  "tests/http/languages-pages.test.ts": "the words of the rendered pages in Greek: the pages' text, whatever the database's dialect",
};
