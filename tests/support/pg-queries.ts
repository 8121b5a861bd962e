import pg from "pg";

/**
 * Records the text of every query any pg client sends (one entry per round trip) until
 * `stop()`: for tests that count a request's round trips to PostgreSQL.
 */
export function recordPgQueries(): { sent: string[]; stop: () => void } {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text: string };
    sent.push(typeof config === "string" ? config : config.text);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  return { sent, stop: () => { pg.Client.prototype.query = query; } };
}
