import { createServer, connect, type Server, type Socket } from "node:net";

/** A TCP relay in front of PostgreSQL that can be stopped (connections cut, new ones refused) and started again. */
export async function relay(target: { host: string; port: number }, port: number) {
  let server: Server | null = null;
  const sockets = new Set<Socket>();
  const start = () => new Promise<void>((resolve) => {
    server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on("close", () => sockets.delete(s));
        s.on("error", () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const stop = () => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    server?.close(() => resolve());
  });
  await start();
  return { start, stop };
}
