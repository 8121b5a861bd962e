import { afterAll, beforeAll } from "vitest";
import { api } from "@/tests/support/http";
import { startServer, type TestServer } from "@/tests/support/server";

/**
 * A server of its own for the enclosing describe block: started before its tests, stopped after
 * them. Read `server` and `http` inside the tests (they are set once the block starts).
 */
export function suiteServer(options: Parameters<typeof startServer>[0] = {}): { server: TestServer; http: ReturnType<typeof api> } {
  const suite = {} as { server: TestServer; http: ReturnType<typeof api> };
  beforeAll(async () => {
    suite.server = await startServer(options);
    suite.http = api(suite.server.url);
  });
  afterAll(() => suite.server?.stop());
  return suite;
}
