// A server that hands every request to Next's request handler, without server.mjs: the API's
// requests then go through Next's route handlers (app/api/[[...path]]/route.ts), the transport
// server.mjs uses only until the API's routers are loaded, and in development. Tests start it as
// they start server.mjs (tests/support/server.ts, `script`), with PORT and HOSTNAME_BIND.
import http from "node:http";
import next from "next";

const port = Number(process.env.PORT);
const hostname = process.env.HOSTNAME_BIND || "127.0.0.1";
const app = next({ dev: false, hostname, port, dir: process.cwd() });
const handle = app.getRequestHandler();
await app.prepare();
const server = http.createServer((req, res) => {
  handle(req, res).catch((error) => {
    console.error("request failed:", error);
    if (!res.headersSent) {
      res.statusCode = 500;
      res.end();
    } else {
      res.destroy();
    }
  });
});
server.listen(port, hostname, () => console.log(`Next's handler alone on http://${hostname}:${port}/`));
process.on("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
});
