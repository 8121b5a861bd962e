import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createTcpServer, type AddressInfo, type Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import {
  formatIp,
  NOTHING_ALLOWED,
  OutboundError,
  outboundRequest,
  parseIp,
  parseOutboundAllow,
  specialAddress,
  type OutboundAllowList,
  type OutboundOptions,
} from "@/lib/outbound";
import { TEST_TLS_CERT, TEST_TLS_KEY } from "@/tests/support/fake-vendors/tls";

function allow(text: string): OutboundAllowList {
  const parsed = parseOutboundAllow(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.allow;
}

const LOCAL = allow("127.0.0.1");

function options(extra: Partial<OutboundOptions> = {}): OutboundOptions {
  return { allow: LOCAL, timeoutMs: 5000, maxBytes: 1024 * 1024, ...extra };
}

/** The OutboundError a promise rejects with. */
async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(OutboundError);
    return error as OutboundError;
  }
  throw new Error("expected the request to fail");
}

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse, seen: Seen) => void, host = "127.0.0.1") {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const s = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() };
      seen.push(s);
      handler(req, res, s);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  servers.push({ close: () => { for (const s of sockets) s.destroy(); server.close(); } });
  return { port, seen, url: `http://${host === "::1" ? "[::1]" : host}:${port}` };
}

describe("special addresses", () => {
  it.each([
    ["127.0.0.1", "a loopback address"],
    ["127.255.255.254", "a loopback address"],
    ["0.0.0.0", "an unspecified (\"this network\") address"],
    ["0.1.2.3", "an unspecified (\"this network\") address"],
    ["169.254.169.254", "a cloud metadata address"],
    ["169.254.10.1", "a link-local address"],
    ["100.100.100.200", "a cloud metadata address"],
    ["100.64.0.1", "a carrier-grade NAT address (100.64.0.0/10)"],
    ["224.0.0.251", "a multicast address"],
    ["255.255.255.255", "a reserved address"],
    ["192.0.2.10", "a documentation address"],
    ["::1", "a loopback address"],
    ["::", "the unspecified address"],
    ["fe80::1%eth0", "a link-local address"],
    ["fd00:ec2::254", "a cloud metadata address"],
    ["ff02::1", "a multicast address"],
    ["::ffff:127.0.0.1", "a loopback address"],
    ["::ffff:7f00:1", "a loopback address"],
    ["::ffff:169.254.169.254", "a cloud metadata address"],
    ["64:ff9b::a9fe:a9fe", "a cloud metadata address"],
    ["2002:7f00:1::", "a loopback address"],
    ["::127.0.0.1", "a deprecated IPv4-compatible address"],
    ["2001:db8::1", "a documentation address"],
  ])("%s is %s", (address, what) => {
    expect(specialAddress(parseIp(address)!)).toBe(what);
  });

  it.each(["10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "8.8.8.8", "100.128.0.1", "fd12:3456::1", "fc00::1",
    "2a00:1450:4001::200e", "::ffff:10.0.0.1", "::ffff:8.8.8.8"])("%s is an ordinary address (private LAN or public)", (address) => {
    expect(specialAddress(parseIp(address)!)).toBeNull();
  });

  it("parses and writes addresses", () => {
    expect(formatIp(parseIp("::ffff:127.0.0.1")!)).toBe("::ffff:7f00:1");
    expect(formatIp(parseIp("2001:db8:0:0:1:0:0:1")!)).toBe("2001:db8::1:0:0:1");
    expect(formatIp(parseIp("[::1]")!)).toBe("::1");
    expect(parseIp("127.1")).toBeNull();
    expect(parseIp("0177.0.0.1")).toBeNull();
    expect(parseIp("logger.example.org")).toBeNull();
  });
});

describe("ENHYDRIS_OUTBOUND_ALLOW", () => {
  it("reads host names, addresses and ranges", () => {
    const parsed = parseOutboundAllow(" Logger.Example.org., 127.0.0.1,10.0.0.0/8 , ::1, [fe80::1], fd00::/8, .lan.example, ");
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.allow.hosts).toEqual(["logger.example.org", ".lan.example"]);
    expect(parsed.allow.ranges.map((r) => `${formatIp(r.bytes)}/${r.prefix}`)).toEqual(
      ["127.0.0.1/32", "10.0.0.0/8", "::1/128", "fe80::1/128", "fd00::/8"]);
  });

  it("is empty when unset", () => {
    expect(parseOutboundAllow(undefined)).toEqual({ ok: true, allow: NOTHING_ALLOWED });
    expect(parseOutboundAllow("  ")).toEqual({ ok: true, allow: NOTHING_ALLOWED });
  });

  it("clears the host bits of a range", () => {
    const parsed = parseOutboundAllow("10.1.2.3/8");
    expect(parsed.ok && formatIp(parsed.allow.ranges[0].bytes)).toBe("10.0.0.0");
  });

  it.each([
    ["10.0.0.0/33", 'ENHYDRIS_OUTBOUND_ALLOW: "10.0.0.0/33" is not a CIDR range (such as 10.1.0.0/16 or fd00::/8)'],
    ["10.0.0.0/x", 'ENHYDRIS_OUTBOUND_ALLOW: "10.0.0.0/x" is not a CIDR range (such as 10.1.0.0/16 or fd00::/8)'],
    ["http://logger.example.org/", 'ENHYDRIS_OUTBOUND_ALLOW: "http://logger.example.org/" is a URL; write only its host name (such as logger.example.org)'],
    ["logger.example.org:8080", 'ENHYDRIS_OUTBOUND_ALLOW: "logger.example.org:8080" has a port; write the host name or address alone'],
    ["127.1", 'ENHYDRIS_OUTBOUND_ALLOW: "127.1" is not a host name, an IP address or a CIDR range (such as logger.example.org, 127.0.0.1 or 10.0.0.0/8)'],
    ["a b", 'ENHYDRIS_OUTBOUND_ALLOW: "a b" is not a host name, an IP address or a CIDR range (such as logger.example.org, 127.0.0.1 or 10.0.0.0/8)'],
    ["*.example.org", 'ENHYDRIS_OUTBOUND_ALLOW: "*.example.org" is not a host name, an IP address or a CIDR range (such as logger.example.org, 127.0.0.1 or 10.0.0.0/8)'],
  ])("refuses %s with a clear message", (entry, message) => {
    expect(parseOutboundAllow(`localhost, ${entry}`)).toEqual({ ok: false, error: message });
  });
});

describe("the address guard", () => {
  it("refuses loopback unless allowed, and sends nothing", async () => {
    const { url, seen, port } = await serve((_q, res) => res.end("hello"));
    const error = await failure(outboundRequest(`${url}/x?passwd=secret`, {}, options({ allow: NOTHING_ALLOWED })));
    expect(error.code).toBe("refused_address");
    expect(error.message).toBe("127.0.0.1 is a loopback address, which is not allowed (see ENHYDRIS_OUTBOUND_ALLOW)");
    expect(seen).toHaveLength(0);
    expect((await outboundRequest(`${url}/x`, {}, options())).text()).toBe("hello");
    expect((await outboundRequest(`${url}/x`, {}, options({ allow: allow("127.0.0.0/8") }))).text()).toBe("hello");
    const named = await failure(outboundRequest(`http://localhost:${port}/`, {}, options({ allow: NOTHING_ALLOWED })));
    expect(named.message).toMatch(new RegExp(`^localhost:${port} resolves to (127\\.0\\.0\\.1|::1), a loopback address, which is not allowed \\(see ENHYDRIS_OUTBOUND_ALLOW\\)$`));
    expect((await outboundRequest(`http://localhost:${port}/`, {}, options({ allow: allow("localhost"), resolve: async () => ["127.0.0.1"] }))).text()).toBe("hello");
  });

  it("refuses IPv6 loopback and IPv4-mapped loopback", async () => {
    expect((await failure(outboundRequest("http://[::1]:9/", {}, options({ allow: NOTHING_ALLOWED })))).message)
      .toBe("::1 is a loopback address, which is not allowed (see ENHYDRIS_OUTBOUND_ALLOW)");
    expect((await failure(outboundRequest("http://[::ffff:127.0.0.1]:9/", {}, options({ allow: NOTHING_ALLOWED })))).message)
      .toBe("::ffff:7f00:1 is a loopback address, which is not allowed (see ENHYDRIS_OUTBOUND_ALLOW)");
    expect((await failure(outboundRequest("http://169.254.169.254/latest/meta-data/", {}, options()))).message)
      .toBe("169.254.169.254 is a cloud metadata address, which is not allowed (see ENHYDRIS_OUTBOUND_ALLOW)");
    expect((await failure(outboundRequest("http://0.0.0.0:9/", {}, options()))).message)
      .toBe("0.0.0.0 is an unspecified (\"this network\") address, which is not allowed (see ENHYDRIS_OUTBOUND_ALLOW)");
    // URL parsing turns other spellings into dotted decimal first.
    expect((await failure(outboundRequest("http://2130706433:9/", {}, options({ allow: NOTHING_ALLOWED })))).message)
      .toBe("127.0.0.1 is a loopback address, which is not allowed (see ENHYDRIS_OUTBOUND_ALLOW)");
  });

  it("resolves once and connects to the address it checked (no rebinding)", async () => {
    const { port, seen } = await serve((_q, res) => res.end("pinned"));
    let calls = 0;
    const resolve = async () => (++calls === 1 ? ["127.0.0.1"] : ["10.255.255.1"]);
    // rebind.test does not exist: the request reaches the server only through the pinned address.
    const response = await outboundRequest(`http://rebind.test:${port}/`, {}, options({ resolve }));
    expect(response.text()).toBe("pinned");
    expect(calls).toBe(1);
    expect(seen[0].headers.host).toBe(`rebind.test:${port}`);
  });

  it("connects only to the permitted addresses of a name", async () => {
    const { port } = await serve((_q, res) => res.end("ok"));
    const both = async () => ["169.254.169.254", "127.0.0.1"];
    expect((await outboundRequest(`http://two.test:${port}/`, {}, options({ resolve: both }))).text()).toBe("ok");
    const error = await failure(outboundRequest(`http://two.test:${port}/`, {}, options({ resolve: both, allow: NOTHING_ALLOWED })));
    expect(error.message).toBe(`two.test:${port} resolves to 169.254.169.254, a cloud metadata address, which is not allowed (see ENHYDRIS_OUTBOUND_ALLOW)`);
  });

  it("allows private LAN addresses", async () => {
    // Whatever is (or is not) there, the request gets past the guard.
    for (const address of ["10.255.255.1", "172.16.0.1", "192.168.255.1", "[fd12::1]"]) {
      const outcome = await outboundRequest(`http://${address}:9/`, {}, options({ allow: NOTHING_ALLOWED, timeoutMs: 300 }))
        .then(() => "answered", (error: OutboundError) => error.code);
      expect(outcome).not.toBe("refused_address");
    }
  });

  it("says when a name does not resolve", async () => {
    const error = await failure(outboundRequest("http://nowhere.invalid/", {}, options()));
    expect(error.code).toBe("not_found");
    expect(error.message).toBe("nowhere.invalid could not be found (the name does not resolve)");
  });

  it("refuses URLs that are not http(s) or carry credentials, without repeating them", async () => {
    expect((await failure(outboundRequest("ftp://127.0.0.1/", {}, options()))).message).toBe("the URL is not an http or https URL");
    expect((await failure(outboundRequest("not a url", {}, options()))).message).toBe("the URL is not valid");
    const error = await failure(outboundRequest("http://alice:secret@127.0.0.1:9/", {}, options()));
    expect(error.message).toBe("the URL of 127.0.0.1:9 must not contain a user name or password");
  });
});

describe("the request", () => {
  it("names the service as its client unless the caller names one (some hosts refuse a request without)", async () => {
    const server = await serve((_req, res) => res.end("ok"));
    await outboundRequest(`${server.url}/`, {}, options());
    await outboundRequest(`${server.url}/`, { headers: { "user-agent": "logger-cloud-client/2" } }, options());
    expect(server.seen.map((s) => s.headers["user-agent"])).toEqual(["enhydris-ts", "logger-cloud-client/2"]);
  });
});

describe("redirects", () => {
  it("follows them, checking each hop, at most a few", async () => {
    const { url, seen } = await serve((req, res) => {
      const n = Number(req.url!.slice(1));
      if (n < 7) res.writeHead(302, { Location: `/${n + 1}` }).end();
      else res.end(`arrived at ${n}`);
    });
    expect((await outboundRequest(`${url}/3`, {}, options())).text()).toBe("arrived at 7");
    seen.length = 0;
    const error = await failure(outboundRequest(`${url}/0`, {}, options()));
    expect(error.message).toBe(`${url.slice(7)} redirected more than 5 times`);
    expect(seen).toHaveLength(6);
  });

  it("refuses a redirect to a refused address, with a clear message", async () => {
    const target = await serve((_q, res) => res.end("secret place"), "127.0.0.2");
    const { url } = await serve((req, res) => res.writeHead(302, { Location: req.url === "/meta" ? "http://169.254.169.254/latest/" : `${target.url}/x` }).end());
    const error = await failure(outboundRequest(`${url}/`, {}, options()));
    expect(error.code).toBe("refused_address");
    expect(error.message).toBe(`${url.slice(7)} redirects to ${target.url.slice(7)}; 127.0.0.2 is a loopback address, which is not allowed (see ENHYDRIS_OUTBOUND_ALLOW)`);
    expect(target.seen).toHaveLength(0);
    expect((await failure(outboundRequest(`${url}/meta`, {}, options()))).message)
      .toBe(`${url.slice(7)} redirects to 169.254.169.254; 169.254.169.254 is a cloud metadata address, which is not allowed (see ENHYDRIS_OUTBOUND_ALLOW)`);
    const named = await failure(outboundRequest(`${url}/`, {}, options({ allow: allow("127.0.0.1, rebound.test") })));
    expect(named.message).toMatch(/redirects to 127\.0\.0\.2:\d+; 127\.0\.0\.2 is a loopback address/);
  });

  it("turns a POST into a GET on 303, keeps it on 307 to the same host", async () => {
    const { url, seen } = await serve((req, res) => {
      if (req.url === "/see-other") res.writeHead(303, { Location: "/result" }).end();
      else if (req.url === "/temporary") res.writeHead(307, { Location: "/result" }).end();
      else res.end("done");
    });
    await outboundRequest(`${url}/see-other`, { method: "POST", body: "a=1", headers: { "Content-Type": "text/plain" } }, options());
    expect(seen.map((s) => [s.method, s.url, s.body])).toEqual([["POST", "/see-other", "a=1"], ["GET", "/result", ""]]);
    seen.length = 0;
    await outboundRequest(`${url}/temporary`, { method: "POST", body: "a=1" }, options());
    expect(seen.map((s) => [s.method, s.url, s.body])).toEqual([["POST", "/temporary", "a=1"], ["POST", "/result", "a=1"]]);
  });

  it("sends credentials to no other host", async () => {
    const { url, seen, port } = await serve((req, res) => {
      if (req.url === "/away") res.writeHead(302, { Location: `http://other.test:${port}/there` }).end();
      else if (req.url === "/post-away") res.writeHead(307, { Location: `http://other.test:${port}/there` }).end();
      else res.end("ok");
    });
    const resolve = async () => ["127.0.0.1"];
    await outboundRequest(`${url}/away`, { headers: { Authorization: "Token secret" } }, options({ resolve }));
    expect(seen[0].headers.authorization).toBe("Token secret");
    expect(seen[1].headers.authorization).toBeUndefined();
    expect(seen[1].headers.host).toBe(`other.test:${port}`);
    const error = await failure(outboundRequest(`${url}/post-away`, { method: "POST", body: "key=secret" }, options({ resolve })));
    expect(error.message).toBe(`127.0.0.1:${port} redirects to other.test:${port}, which would receive the request's body again; use other.test:${port} directly`);
  });

  it("sends no header the request names as a credential to another host, nor from https to http", async () => {
    const { url, seen, port } = await serve((req, res) => {
      if (req.url === "/away") res.writeHead(302, { Location: `http://other.test:${port}/there` }).end();
      else if (req.url === "/here") res.writeHead(302, { Location: "/there" }).end();
      else res.end("ok");
    });
    const resolve = async () => ["127.0.0.1"];
    const headers = { "X-API-Key": "key-secret", "x-token": "token-secret", Accept: "text/csv" };
    // Without credentialHeaders a header of the caller's own is not known to be one.
    await outboundRequest(`${url}/away`, { headers }, options({ resolve }));
    expect(seen[1].headers["x-api-key"]).toBe("key-secret");
    seen.length = 0;
    await outboundRequest(`${url}/away`, { headers, credentialHeaders: ["x-api-key", " X-Token "] }, options({ resolve }));
    expect(seen[0].headers).toMatchObject({ "x-api-key": "key-secret", "x-token": "token-secret" });
    expect(seen[1].headers.host).toBe(`other.test:${port}`);
    expect(seen[1].headers["x-api-key"]).toBeUndefined();
    expect(seen[1].headers["x-token"]).toBeUndefined();
    expect(seen[1].headers.accept).toBe("text/csv");
    seen.length = 0;
    // The same host keeps them.
    await outboundRequest(`${url}/here`, { headers, credentialHeaders: ["X-API-Key"] }, options({ resolve }));
    expect(seen.map((s) => [s.url, s.headers["x-api-key"]])).toEqual([["/here", "key-secret"], ["/there", "key-secret"]]);
  });

  it("drops a named credential header on a redirect from https to http of the same host", async () => {
    const plain = await serve((_q, res) => res.end("plain"));
    const seenTls: IncomingMessage["headers"][] = [];
    const tls = createHttpsServer({ key: TEST_TLS_KEY, cert: TEST_TLS_CERT }, (req, res) => {
      seenTls.push(req.headers);
      res.writeHead(302, { Location: `http://127.0.0.1:${plain.port}/down` }).end();
    });
    await new Promise<void>((r) => tls.listen(0, "127.0.0.1", r));
    servers.push({ close: () => tls.close() });
    const tlsPort = (tls.address() as AddressInfo).port;
    await outboundRequest(`https://127.0.0.1:${tlsPort}/`, { headers: { "X-API-Key": "key-secret" }, credentialHeaders: ["X-API-Key"] }, options({ verifyTls: false }));
    expect(seenTls[0]["x-api-key"]).toBe("key-secret");
    expect(plain.seen[0].url).toBe("/down");
    expect(plain.seen[0].headers["x-api-key"]).toBeUndefined();
  });
});

describe("time limits", () => {
  it("gives up on a server that never answers", async () => {
    const { url } = await serve(() => undefined);
    const started = Date.now();
    const error = await failure(outboundRequest(`${url}/addUPI?function=login&passwd=secret`, {}, options({ timeoutMs: 300 })));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error.code).toBe("timeout");
    expect(error.message).toBe(`the answer of ${url.slice(7)} timed out after 0.3 s`);
    expect(error.message).not.toContain("secret");
  });

  it("gives up on an answer that trickles for longer than the request's time", async () => {
    const { url } = await serve((_q, res) => {
      res.writeHead(200);
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write("x")), 50);
    });
    const error = await failure(outboundRequest(url, {}, options({ timeoutMs: 1000, idleTimeoutMs: 500 })));
    expect(error.message).toBe(`the answer of ${url.slice(7)} timed out after 1 s`);
  });

  it("gives up on a connection that stays silent", async () => {
    const { url } = await serve((_q, res) => {
      res.writeHead(200);
      res.write("start");
    });
    const error = await failure(outboundRequest(url, {}, options({ timeoutMs: 5000, idleTimeoutMs: 200 })));
    expect(error.message).toBe(`${url.slice(7)} sent nothing for 0.2 s`);
  });

  it("counts name resolution in the time", async () => {
    const error = await failure(outboundRequest("http://slow.test/", {}, options({ timeoutMs: 200, resolve: () => new Promise(() => undefined) })));
    expect(error.message).toBe("the connection to slow.test timed out after 0.2 s");
  });

  it("stops when cancelled", async () => {
    const { url } = await serve(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await failure(outboundRequest(url, {}, options({ signal: controller.signal })));
    expect(error.message).toBe("the request was cancelled");
  });
});

describe("the size limit", () => {
  it("refuses an answer whose Content-Length is over the limit, without reading it", async () => {
    let written = 0;
    const { url } = await serve((_q, res) => {
      res.writeHead(200, { "Content-Length": String(1024 ** 3) });
      const chunk = Buffer.alloc(64 * 1024, 120);
      const more = () => {
        while (!res.destroyed && written < 1024 ** 3) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
      };
      res.on("close", () => undefined);
      more();
    });
    const error = await failure(outboundRequest(url, {}, options({ maxBytes: 1000 })));
    expect(error.code).toBe("too_large");
    expect(error.message).toBe(`the answer of ${url.slice(7)} is larger than 1000 bytes, the limit`);
    await new Promise((r) => setTimeout(r, 100));
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it("refuses a chunked answer as soon as the bytes read pass the limit", async () => {
    let written = 0;
    const { url } = await serve((_q, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 120);
      const more = () => {
        while (!res.destroyed && written < 1024 ** 3) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
      };
      more();
    });
    const error = await failure(outboundRequest(url, {}, options({ maxBytes: 1024 * 1024 })));
    expect(error.message).toBe(`the answer of ${url.slice(7)} is larger than 1 MB, the limit`);
    await new Promise((r) => setTimeout(r, 100));
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it("counts the decompressed bytes of a compressed answer", async () => {
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024, 0));
    const small = gzipSync(Buffer.from("small answer"));
    const { url } = await serve((req, res) => res.writeHead(200, { "Content-Encoding": "gzip" }).end(req.url === "/bomb" ? bomb : small));
    expect((await outboundRequest(`${url}/small`, {}, options())).text()).toBe("small answer");
    const error = await failure(outboundRequest(`${url}/bomb`, {}, options({ maxBytes: 1024 * 1024 })));
    expect(error.message).toBe(`the answer of ${url.slice(7)} is larger than 1 MB, the limit`);
  });

  it("accepts an answer of exactly the limit", async () => {
    const { url } = await serve((_q, res) => res.end(Buffer.alloc(1000, 97)));
    expect((await outboundRequest(url, {}, options({ maxBytes: 1000 }))).body.length).toBe(1000);
  });
});

describe("connection failures", () => {
  it("says the server refused the connection", async () => {
    const { url, port } = await serve(() => undefined);
    servers.pop()!.close();
    await new Promise((r) => setTimeout(r, 50));
    expect((await failure(outboundRequest(url, {}, options()))).message).toBe(`127.0.0.1:${port} refused the connection`);
  });

  it("says the answer was cut off", async () => {
    const { url } = await serve((_q, res) => {
      res.writeHead(200, { "Content-Length": "100" });
      res.write("only part");
      setTimeout(() => res.socket?.destroy(), 50);
    });
    expect((await failure(outboundRequest(url, {}, options()))).message).toBe(`${url.slice(7)} closed the connection before its answer was complete`);
  });

  it("says the answer is not HTTP", async () => {
    const raw = createTcpServer((socket) => socket.end("this is not http at all\r\n\r\n"));
    await new Promise<void>((r) => raw.listen(0, "127.0.0.1", r));
    servers.push({ close: () => raw.close() });
    const port = (raw.address() as AddressInfo).port;
    expect((await failure(outboundRequest(`http://127.0.0.1:${port}/`, {}, options()))).message).toBe(`127.0.0.1:${port} answered something that is not HTTP`);
  });
});

describe("TLS", () => {
  async function tlsServer() {
    const names: string[] = [];
    const server = createHttpsServer({ key: TEST_TLS_KEY, cert: TEST_TLS_CERT }, (req, res) => res.end(`tls ${req.headers.host}`));
    server.on("secureConnection", (socket) => names.push((socket as unknown as { servername: string }).servername));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    servers.push({ close: () => { server.closeAllConnections(); server.close(); } });
    return { port: (server.address() as AddressInfo).port, names };
  }

  it("verifies certificates unless told not to", async () => {
    const { port } = await tlsServer();
    const error = await failure(outboundRequest(`https://127.0.0.1:${port}/`, {}, options()));
    expect(error.code).toBe("tls");
    expect(error.message).toBe(`the TLS certificate of 127.0.0.1:${port} could not be verified (self-signed certificate)`);
    expect((await outboundRequest(`https://127.0.0.1:${port}/`, {}, options({ verifyTls: false }))).text()).toBe(`tls 127.0.0.1:${port}`);
  });

  it("sends the host name as SNI and Host while connecting to the checked address", async () => {
    const { port, names } = await tlsServer();
    const response = await outboundRequest(`https://tls.test:${port}/`, {}, options({ verifyTls: false, resolve: async () => ["127.0.0.1"] }));
    expect(response.text()).toBe(`tls tls.test:${port}`);
    expect(names).toEqual(["tls.test"]);
  });
});
