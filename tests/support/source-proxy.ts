import { createServer, type ServerResponse } from "node:http";

/**
 * A proxy in front of a replication source (replication.md) for the replication tests. Under
 * /ref/ the source speaks like the reference system: no legacy model lists, no stype,
 * original_srid or data_viewers on stations, translations instead of descr on variables. Hooks
 * let a test break the source on demand or count what reaches it.
 */
export interface SourceProxyHooks {
  /** Sees each request's path (without /ref/) before it is forwarded. */
  seen?: (path: string, reference: boolean) => void;
  /** Answers a request itself (true), or leaves it to the source (false). */
  intercept?: (path: string, res: ServerResponse) => boolean;
  /** Rewrites the source's answer body. */
  rewrite?: (path: string, body: Buffer) => Buffer;
}

export interface SourceProxy {
  url: string;
  close(): Promise<void>;
}

function likeTheReference(path: string, body: Buffer): Buffer {
  const data = JSON.parse(body.toString("utf8"));
  const like = (o: Record<string, unknown>) => {
    if (path.startsWith("/api/variables/")) return { id: o.id, last_modified: o.last_modified, translations: { en: { descr: o.descr } } };
    if ("geom" in o) {
      const { stype: _s, data_viewers: _d, original_srid: _o, ...rest } = o;
      return rest;
    }
    return o;
  };
  return Buffer.from(JSON.stringify(Array.isArray(data.results) ? { ...data, results: data.results.map(like) } : like(data)));
}

/** Starts the proxy on loopback; `source()` is the source's URL when a request comes. */
export async function startSourceProxy(source: () => string, hooks: SourceProxyHooks = {}): Promise<SourceProxy> {
  const proxy = createServer(async (req, res) => {
    let path = req.url ?? "/";
    const reference = path.startsWith("/ref/");
    if (reference) {
      path = path.slice(4);
      if (/^\/api\/[A-Z]/.test(path)) {
        res.writeHead(404, { "Content-Type": "text/html" }).end("<h1>Not Found</h1>");
        return;
      }
    }
    hooks.seen?.(path, reference);
    if (hooks.intercept?.(path, res)) return;
    const upstream = await fetch(source() + path, { method: req.method, headers: req.headers.authorization ? { Authorization: req.headers.authorization } : {} });
    let body: Buffer = Buffer.from(await upstream.arrayBuffer());
    if (reference && /^\/api\/(stations|variables)\//.test(path) && (upstream.headers.get("content-type") ?? "").includes("json")) {
      body = likeTheReference(path, body);
    }
    if (hooks.rewrite) body = hooks.rewrite(path, body);
    const headers: Record<string, string> = {};
    for (const name of ["content-type", "content-disposition"]) {
      const value = upstream.headers.get(name);
      if (value) headers[name] = value;
    }
    res.writeHead(upstream.status, headers).end(body);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as { port: number }).port}`,
    close: async () => {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}
