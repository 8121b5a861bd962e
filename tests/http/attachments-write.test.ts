import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { connectFixtures, startServer, type TestServer } from "@/tests/support/server";

/**
 * Files and images of a station (api.md §9) and events (§10): writes.
 */
let server: TestServer;
let http: ReturnType<typeof api>;
let admin: f.TestUser;

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  admin = await f.user({ superuser: true });
});
afterAll(() => server?.stop());

type Kind = "files" | "images";
const FILE_KEYS = ["id", "last_modified", "date", "content", "descr", "remarks", "gentity"];
const IMAGE_KEYS = ["id", "last_modified", "date", "content", "descr", "remarks", "featured", "gentity"];
const EVENT_KEYS = ["id", "last_modified", "date", "user", "report", "gentity", "type"];
const LAST_MODIFIED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const NO_FILE = { content: ["No file was submitted."] };
const NOT_A_FILE = { content: ["The submitted data was not a file. Check the encoding type on the form."] };
const EMPTY_FILE = { content: ["The submitted file is empty."] };
const BAD_IMAGE = { content: ["Upload a valid image (JPEG, PNG, GIF or WebP)."] };

function expect400(r: TestResponse, body: Record<string, unknown>) {
  expect(r.status, r.text).toBe(400);
  expect(r.json).toEqual(body);
}

interface Upload { name: string; bytes: string | Uint8Array<ArrayBuffer>; type?: string }
function multipart(fields: Record<string, string>, file?: Upload): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append("content", new Blob([file.bytes], file.type ? { type: file.type } : {}), file.name);
  return form;
}
const base = (sid: number, kind: Kind) => `/api/stations/${sid}/${kind}/`;
function send(method: "POST" | "PUT" | "PATCH", path: string, fields: Record<string, string>, file?: Upload, token: string | undefined = admin.token, h = http) {
  return h.request(method, path, { body: multipart(fields, file), token });
}
async function create(sid: number, kind: Kind, fields: Record<string, string> = {}, file: Upload = { name: kind === "files" ? "doc.pdf" : "pic.png", bytes: "bytes" }) {
  const r = await send("POST", base(sid, kind), kind === "files" ? { descr: "A file", ...fields } : fields, file);
  expect(r.status, r.text).toBe(201);
  return r.json;
}
async function content(path: string) {
  const response = await fetch(server.url + path);
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}
async function storedName(kind: Kind, id: number): Promise<string> {
  const row = kind === "files" ? await db().prisma.gentityFile.findUnique({ where: { id } }) : await db().prisma.gentityImage.findUnique({ where: { id } });
  return row?.storedName ?? "";
}
function mediaFiles(): string[] {
  if (!existsSync(server.mediaDir)) return [];
  return (readdirSync(server.mediaDir, { recursive: true }) as string[]).map(String).filter((n) => !n.endsWith("/")).sort();
}

describe("files: upload and download (§9)", () => {
  it("creates a file from a multipart body, 201 with fields in order and the content URL", async () => {
    const sid = await f.station();
    const r = await send("POST", base(sid, "files"), { descr: "Manual", date: "2019-01-02", remarks: "  first edition  " }, { name: "Manual.pdf", bytes: "%PDF-1.4 manual" });
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.json)).toEqual(FILE_KEYS);
    expect(r.json).toEqual({ id: r.json.id, last_modified: r.json.last_modified, date: "2019-01-02", content: `${server.url}/api/stations/${sid}/files/${r.json.id}/content/`,
      descr: "Manual", remarks: "first edition", gentity: sid });
    expect(r.json.last_modified).toMatch(LAST_MODIFIED);
    expect((await http.get(`${base(sid, "files")}${r.json.id}/`)).json).toEqual(r.json);
  });

  it("serves the bytes back exactly, with Content-Type, Content-Length and Content-Disposition", async () => {
    const sid = await f.station();
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const id = (await create(sid, "files", {}, { name: "binary.pdf", bytes })).id;
    const r = await content(`${base(sid, "files")}${id}/content/`);
    expect(r.status).toBe(200);
    expect(Buffer.compare(r.body, Buffer.from(bytes))).toBe(0);
    expect(r.headers.get("content-type")).toBe("application/pdf");
    expect(r.headers.get("content-length")).toBe("256");
    expect(r.headers.get("content-disposition")).toBe('attachment; filename="binary.pdf"');
  });

  it("applies the defaults date null and remarks empty", async () => {
    const sid = await f.station();
    const r = await create(sid, "files", { descr: "Plain" });
    expect(r).toMatchObject({ date: null, remarks: "", descr: "Plain" });
  });

  it.each([["a.pdf", "application/pdf"], ["a.jpg", "image/jpeg"], ["a.jpeg", "image/jpeg"], ["a.png", "image/png"], ["a.gif", "image/gif"], ["a.webp", "image/webp"],
    ["a.txt", "text/plain"], ["a.csv", "text/csv"], ["a.zip", "application/zip"], ["a.xyz", "application/octet-stream"], ["noextension", "application/octet-stream"]])(
    "serves %s as %s", async (name, type) => {
      const sid = await f.station();
      const id = (await create(sid, "files", {}, { name, bytes: "data" })).id;
      const r = await content(`${base(sid, "files")}${id}/content/`);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toBe(type);
    });

  it("names a non-ASCII file with filename*", async () => {
    const sid = await f.station();
    const id = (await create(sid, "files", {}, { name: "Σχέδιο.pdf", bytes: "x" })).id;
    const r = await content(`${base(sid, "files")}${id}/content/`);
    const cd = r.headers.get("content-disposition")!;
    expect(cd).toMatch(/^attachment; filename="[^"]*"; filename\*=UTF-8''/);
    expect(cd).toContain(`filename*=UTF-8''${encodeURIComponent("Σχέδιο.pdf")}`);
  });

  it("stores a large upload (12 MB) whole, beyond any proxy buffering limit (§1.1)", async () => {
    const sid = await f.station();
    const bytes = new Uint8Array(12 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i += 4096) bytes[i] = (i / 4096) % 251;
    bytes[bytes.length - 1] = 7;
    const r = await send("POST", base(sid, "files"), { descr: "Large" }, { name: "large.zip", bytes });
    expect(r.status, r.text.slice(0, 200)).toBe(201);
    const c = await content(`${base(sid, "files")}${r.json.id}/content/`);
    expect(c.body.length).toBe(bytes.length);
    expect(Buffer.compare(c.body, Buffer.from(bytes))).toBe(0);
  });

  it("stores the bytes under a generated name inside the media directory", async () => {
    const sid = await f.station();
    const id = (await create(sid, "files", {}, { name: "stored.pdf", bytes: "stored bytes" })).id;
    const name = await storedName("files", id);
    expect(name).not.toBe("");
    const path = resolve(server.mediaDir, name);
    expect(path.startsWith(resolve(server.mediaDir) + "/")).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("stored bytes");
  });
});

describe("files: upload errors (§9)", () => {
  let sid: number;
  beforeAll(async () => {
    sid = await f.station();
  });

  it("refuses a POST without content", async () => {
    const r = await send("POST", base(sid, "files"), { descr: "No file" });
    expect(r.status).toBe(400);
    expect(r.text).toBe('{"content":["No file was submitted."]}');
  });

  it("refuses content sent as a plain field (multipart, form, JSON)", async () => {
    expect400(await send("POST", base(sid, "files"), { descr: "x", content: "not a file" }), NOT_A_FILE);
    expect400(await http.post(base(sid, "files"), { form: { descr: "x", content: "not a file" }, token: admin.token }), NOT_A_FILE);
    expect400(await http.post(base(sid, "files"), { json: { descr: "x", content: "not a file" }, token: admin.token }), NOT_A_FILE);
  });

  it("refuses a form or JSON POST without content as no file", async () => {
    expect400(await http.post(base(sid, "files"), { json: { descr: "x" }, token: admin.token }), NO_FILE);
  });

  it("refuses an empty file", async () => {
    expect400(await send("POST", base(sid, "files"), { descr: "x" }, { name: "empty.pdf", bytes: "" }), EMPTY_FILE);
  });

  it("requires a non-blank descr for files, at most 100 characters", async () => {
    expect400(await send("POST", base(sid, "files"), {}, { name: "a.pdf", bytes: "x" }), { descr: ["This field is required."] });
    expect400(await send("POST", base(sid, "files"), { descr: "   " }, { name: "a.pdf", bytes: "x" }), { descr: ["This field may not be blank."] });
    expect400(await send("POST", base(sid, "files"), { descr: "d".repeat(101) }, { name: "a.pdf", bytes: "x" }), { descr: ["Ensure this field has no more than 100 characters."] });
    expect((await create(sid, "files", { descr: "d".repeat(100) })).descr).toBe("d".repeat(100));
  });

  it("reports missing descr and content together", async () => {
    expect400(await send("POST", base(sid, "files"), {}), { descr: ["This field is required."], content: ["No file was submitted."] });
  });

  it("refuses a bad date", async () => {
    expect400(await send("POST", base(sid, "files"), { descr: "x", date: "2019-02-30" }, { name: "a.pdf", bytes: "x" }),
      { date: ["Date has wrong format. Use one of these formats instead: YYYY-MM-DD."] });
  });

  it("accepts gentity equal to the path station and refuses another", async () => {
    const other = await f.station();
    expect((await create(sid, "files", { gentity: String(sid) })).gentity).toBe(sid);
    const r = await send("POST", base(sid, "files"), { descr: "x", gentity: String(other) }, { name: "a.pdf", bytes: "x" });
    expect400(r, { gentity: ["Must equal the station id in the URL."] });
  });

  it("answers 404 under a missing station", async () => {
    const r = await send("POST", base(999999, "files"), { descr: "x" }, { name: "a.pdf", bytes: "x" });
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ detail: "Not found." });
  });

  it("stores nothing when the upload is refused", async () => {
    const before = mediaFiles();
    await send("POST", base(sid, "files"), { descr: "", date: "bad" }, { name: "refused.pdf", bytes: "refused" });
    expect(mediaFiles()).toEqual(before);
  });
});

describe("stored names (§9)", () => {
  it.each([["../../etc/passwd", ["passwd"]], ["/abs/path/report.pdf", ["report.pdf"]], ["a\\b.pdf", ["b.pdf", "ab.pdf"]], ["dir/sub\\x.txt", ["x.txt", "subx.txt"]],
    ["bad\u0001na\u001fme.pdf", ["badname.pdf"]]])(
    "stores %j inside the media directory and serves it under a safe name", async (name, allowed) => {
      const sid = await f.station();
      const outside = resolve(server.mediaDir, "../../etc/passwd");
      const r = await send("POST", base(sid, "files"), { descr: "Evil" }, { name, bytes: "payload" });
      expect(r.status, r.text).toBe(201);
      const stored = await storedName("files", r.json.id);
      expect(resolve(server.mediaDir, stored).startsWith(resolve(server.mediaDir) + "/")).toBe(true);
      expect(readFileSync(join(server.mediaDir, stored), "utf8")).toBe("payload");
      expect(existsSync(outside)).toBe(false);
      const c = await content(`${base(sid, "files")}${r.json.id}/content/`);
      expect(c.status).toBe(200);
      const served = /^attachment; filename="([^"]*)"/.exec(c.headers.get("content-disposition") ?? "")?.[1];
      expect(allowed).toContain(served);
      expect(served).not.toMatch(/[/\\\u0000-\u001f]/);
    });

  it("keeps two uploads with the same name apart, with unique stored names", async () => {
    const sid = await f.station();
    const a = await create(sid, "files", {}, { name: "same.pdf", bytes: "first" });
    const b = await create(sid, "files", {}, { name: "same.pdf", bytes: "second" });
    const c = await create(await f.station(), "files", {}, { name: "same.pdf", bytes: "third" });
    expect((await content(`${base(sid, "files")}${a.id}/content/`)).body.toString()).toBe("first");
    expect((await content(`${base(sid, "files")}${b.id}/content/`)).body.toString()).toBe("second");
    const names = [await storedName("files", a.id), await storedName("files", b.id), await storedName("files", c.id)];
    expect(new Set(names).size).toBe(3);
  });

  it("serves two uploads with the same name under unique names (the stored name gets a suffix)", async () => {
    const sid = await f.station();
    const a = await create(sid, "files", {}, { name: "twin.pdf", bytes: "first" });
    const b = await create(sid, "files", {}, { name: "twin.pdf", bytes: "second" });
    const da = (await content(`${base(sid, "files")}${a.id}/content/`)).headers.get("content-disposition");
    const db2 = (await content(`${base(sid, "files")}${b.id}/content/`)).headers.get("content-disposition");
    expect(da).toBe('attachment; filename="twin.pdf"');
    expect(db2).toMatch(/^attachment; filename="twin[^"]+\.pdf"$/);
  });
});

describe("files: replace, update, delete (§9)", () => {
  it("PATCH with a new content replaces the bytes and removes the old ones", async () => {
    const sid = await f.station();
    const file = await create(sid, "files", { descr: "Versioned", date: "2020-01-01" }, { name: "v1.pdf", bytes: "version 1" });
    const oldName = await storedName("files", file.id);
    const r = await send("PATCH", `${base(sid, "files")}${file.id}/`, {}, { name: "v2.txt", bytes: "version 2" });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ descr: "Versioned", date: "2020-01-01" });
    const c = await content(`${base(sid, "files")}${file.id}/content/`);
    expect(c.body.toString()).toBe("version 2");
    expect(c.headers.get("content-type")).toBe("text/plain");
    expect(c.headers.get("content-disposition")).toBe('attachment; filename="v2.txt"');
    expect(existsSync(join(server.mediaDir, oldName))).toBe(false);
  });

  it("PATCH without content keeps the bytes (multipart and JSON)", async () => {
    const sid = await f.station();
    const file = await create(sid, "files", { descr: "Keep" }, { name: "keep.pdf", bytes: "kept" });
    const a = await send("PATCH", `${base(sid, "files")}${file.id}/`, { remarks: "r" });
    expect(a.status, a.text).toBe(200);
    const b = await http.patch(`${base(sid, "files")}${file.id}/`, { json: { descr: "Kept", date: null }, token: admin.token });
    expect(b.status, b.text).toBe(200);
    expect(b.json).toMatchObject({ descr: "Kept", remarks: "r", date: null });
    expect((await content(`${base(sid, "files")}${file.id}/content/`)).body.toString()).toBe("kept");
  });

  it("PUT requires descr, keeps omitted fields and bytes, and replaces the bytes when content is sent", async () => {
    const sid = await f.station();
    const file = await create(sid, "files", { descr: "Put", date: "2020-02-02", remarks: "keep me" }, { name: "put.pdf", bytes: "put 1" });
    expect400(await send("PUT", `${base(sid, "files")}${file.id}/`, { remarks: "x" }), { descr: ["This field is required."] });
    const a = await send("PUT", `${base(sid, "files")}${file.id}/`, { descr: "Put 2" });
    expect(a.status, a.text).toBe(200);
    expect(a.json).toMatchObject({ descr: "Put 2", date: "2020-02-02", remarks: "keep me" });
    expect((await content(`${base(sid, "files")}${file.id}/content/`)).body.toString()).toBe("put 1");
    const oldName = await storedName("files", file.id);
    const b = await send("PUT", `${base(sid, "files")}${file.id}/`, { descr: "Put 3" }, { name: "put2.pdf", bytes: "put 2" });
    expect(b.status, b.text).toBe(200);
    expect((await content(`${base(sid, "files")}${file.id}/content/`)).body.toString()).toBe("put 2");
    expect(existsSync(join(server.mediaDir, oldName))).toBe(false);
    const c = await http.put(`${base(sid, "files")}${file.id}/`, { json: { descr: "Put 4" }, token: admin.token });
    expect(c.status, c.text).toBe(200);
  });

  it("refuses an empty replacement and keeps the old bytes", async () => {
    const sid = await f.station();
    const file = await create(sid, "files", {}, { name: "x.pdf", bytes: "original" });
    expect400(await send("PATCH", `${base(sid, "files")}${file.id}/`, {}, { name: "y.pdf", bytes: "" }), EMPTY_FILE);
    expect400(await http.patch(`${base(sid, "files")}${file.id}/`, { form: { content: "text" }, token: admin.token }), NOT_A_FILE);
    expect((await content(`${base(sid, "files")}${file.id}/content/`)).body.toString()).toBe("original");
  });

  it("refuses to change gentity", async () => {
    const sid = await f.station();
    const other = await f.station();
    const file = await create(sid, "files");
    const r = await http.patch(`${base(sid, "files")}${file.id}/`, { json: { gentity: other }, token: admin.token });
    expect(r.status).toBe(400);
    expect(Object.keys(r.json)).toEqual(["gentity"]);
    expect((await http.patch(`${base(sid, "files")}${file.id}/`, { json: { gentity: sid }, token: admin.token })).status).toBe(200);
  });

  it("moves last_modified on change", async () => {
    const sid = await f.station();
    const file = await create(sid, "files");
    await new Promise((r) => setTimeout(r, 15));
    const r = await http.patch(`${base(sid, "files")}${file.id}/`, { json: { remarks: "changed" }, token: admin.token });
    expect(Date.parse(r.json.last_modified)).toBeGreaterThan(Date.parse(file.last_modified));
  });

  it("DELETE answers 204 and removes the bytes", async () => {
    const sid = await f.station();
    const file = await create(sid, "files", {}, { name: "gone.pdf", bytes: "soon gone" });
    const name = await storedName("files", file.id);
    expect(existsSync(join(server.mediaDir, name))).toBe(true);
    const r = await http.delete(`${base(sid, "files")}${file.id}/`, { token: admin.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect(existsSync(join(server.mediaDir, name))).toBe(false);
    expect((await http.get(`${base(sid, "files")}${file.id}/`)).status).toBe(404);
    expect((await content(`${base(sid, "files")}${file.id}/content/`)).status).toBe(404);
  });

  it("answers 404 for a file of another station, for every method, and keeps it", async () => {
    const sid = await f.station();
    const other = await f.station();
    const file = await create(sid, "files", {}, { name: "mine.pdf", bytes: "mine" });
    for (const [method, body] of [["PUT", { descr: "x" }], ["PATCH", { descr: "x" }]] as const) {
      const r = await send(method, `${base(other, "files")}${file.id}/`, body, { name: "z.pdf", bytes: "zzz" });
      expect(r.status, method).toBe(404);
    }
    expect((await http.delete(`${base(other, "files")}${file.id}/`, { token: admin.token })).status).toBe(404);
    expect((await content(`${base(other, "files")}${file.id}/content/`)).status).toBe(404);
    expect((await content(`${base(sid, "files")}${file.id}/content/`)).body.toString()).toBe("mine");
  });
});

describe("images (§9)", () => {
  it("creates an image with defaults, fields in order", async () => {
    const sid = await f.station();
    const r = await send("POST", base(sid, "images"), {}, { name: "photo.jpg", bytes: "\xff\xd8jpeg" });
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.json)).toEqual(IMAGE_KEYS);
    expect(r.json).toEqual({ id: r.json.id, last_modified: r.json.last_modified, date: null, content: `${server.url}/api/stations/${sid}/images/${r.json.id}/content/`,
      descr: "", remarks: "", featured: false, gentity: sid });
    const c = await content(`${base(sid, "images")}${r.json.id}/content/`);
    expect(c.headers.get("content-type")).toBe("image/jpeg");
    expect(c.headers.get("content-disposition")).toBe('attachment; filename="photo.jpg"');
  });

  it.each(["a.jpg", "a.jpeg", "a.png", "a.gif", "a.webp"])("accepts the image %s", async (name) => {
    const sid = await f.station();
    const r = await send("POST", base(sid, "images"), { descr: "ok", featured: "true" }, { name, bytes: "img" });
    expect(r.status, r.text).toBe(201);
    expect(r.json.featured).toBe(true);
  });

  it.each(["a.bmp", "a.svg", "a.pdf", "a.txt", "noextension", "a.jpg.exe", "jpg"])("refuses the image %s", async (name) => {
    const sid = await f.station();
    const r = await send("POST", base(sid, "images"), { descr: "bad" }, { name, bytes: "img" });
    expect(r.status).toBe(400);
    expect(r.text).toBe('{"content":["Upload a valid image (JPEG, PNG, GIF or WebP)."]}');
  });

  it("gives the same upload errors as files", async () => {
    const sid = await f.station();
    expect400(await send("POST", base(sid, "images"), { descr: "x" }), NO_FILE);
    expect400(await send("POST", base(sid, "images"), { content: "x" }), NOT_A_FILE);
    expect400(await send("POST", base(sid, "images"), {}, { name: "e.png", bytes: "" }), EMPTY_FILE);
    expect400(await send("POST", base(sid, "images"), { featured: "sometimes" }, { name: "e.png", bytes: "x" }), { featured: ["Must be a valid boolean."] });
    expect400(await send("POST", base(sid, "images"), { descr: "d".repeat(101) }, { name: "e.png", bytes: "x" }), { descr: ["Ensure this field has no more than 100 characters."] });
  });

  it("PATCH replaces the bytes and refuses a non-image replacement", async () => {
    const sid = await f.station();
    const img = await create(sid, "images", { featured: "yes" }, { name: "one.png", bytes: "png 1" });
    const old = await storedName("images", img.id);
    expect400(await send("PATCH", `${base(sid, "images")}${img.id}/`, {}, { name: "two.bmp", bytes: "bmp" }), BAD_IMAGE);
    const r = await send("PATCH", `${base(sid, "images")}${img.id}/`, {}, { name: "two.gif", bytes: "gif 2" });
    expect(r.status, r.text).toBe(200);
    expect(r.json.featured).toBe(true);
    const c = await content(`${base(sid, "images")}${img.id}/content/`);
    expect(c.body.toString()).toBe("gif 2");
    expect(c.headers.get("content-type")).toBe("image/gif");
    expect(existsSync(join(server.mediaDir, old))).toBe(false);
  });

  it("a form PUT keeps featured when omitted", async () => {
    const sid = await f.station();
    const img = await create(sid, "images", { featured: "true", descr: "d" });
    const r = await http.put(`${base(sid, "images")}${img.id}/`, { form: { descr: "e" }, token: admin.token });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ featured: true, descr: "e" });
  });

  it("DELETE removes the bytes", async () => {
    const sid = await f.station();
    const img = await create(sid, "images");
    const name = await storedName("images", img.id);
    expect((await http.delete(`${base(sid, "images")}${img.id}/`, { token: admin.token })).status).toBe(204);
    expect(existsSync(join(server.mediaDir, name))).toBe(false);
    expect((await content(`${base(sid, "images")}${img.id}/content/`)).status).toBe(404);
  });
});

describe("upload size limit (§1.2, §9)", () => {
  let small: TestServer;
  let h: ReturnType<typeof api>;
  let su: f.TestUser;
  let sid: number;
  beforeAll(async () => {
    small = await startServer({ env: { ENHYDRIS_MAX_UPLOAD_SIZE: "2000" } });
    h = api(small.url);
    su = await f.user({ superuser: true });
    sid = await f.station();
  });
  afterAll(async () => {
    await small?.stop();
    await connectFixtures(server.databaseUrl, server.mediaDir);
  });

  it("answers 413 with the exact body for a file above the limit, storing nothing", async () => {
    const r = await send("POST", base(sid, "files"), { descr: "big" }, { name: "big.pdf", bytes: "x".repeat(5000) }, su.token, h);
    expect(r.status).toBe(413);
    expect(r.text).toBe('{"detail":"Request body too large; the limit is 2000 bytes."}');
    expect((await h.get(base(sid, "files"))).json.count).toBe(0);
    const files = existsSync(small.mediaDir) ? readdirSync(small.mediaDir) : [];
    expect(files).toEqual([]);
  });

  it("accepts a file below the limit", async () => {
    const r = await send("POST", base(sid, "images"), {}, { name: "small.png", bytes: "x".repeat(500) }, su.token, h);
    expect(r.status, r.text).toBe(201);
  });

  it("answers 413 for a replacement above the limit and for a large JSON body", async () => {
    const ok = await send("POST", base(sid, "files"), { descr: "ok" }, { name: "ok.pdf", bytes: "ok" }, su.token, h);
    const r = await send("PATCH", `${base(sid, "files")}${ok.json.id}/`, {}, { name: "big.pdf", bytes: "y".repeat(3000) }, su.token, h);
    expect(r.status).toBe(413);
    expect(r.json).toEqual({ detail: "Request body too large; the limit is 2000 bytes." });
    const j = await h.patch(`/api/stations/${sid}/`, { json: { remarks: "r".repeat(3000) }, token: su.token });
    expect(j.status).toBe(413);
  });

  it("accepts a body of exactly the limit and refuses one byte more", async () => {
    const body = (n: number) => {
      const skeleton = JSON.stringify({ remarks: "" });
      return JSON.stringify({ remarks: "r".repeat(n - skeleton.length) });
    };
    expect(Buffer.byteLength(body(2000))).toBe(2000);
    const ok = await h.patch(`/api/stations/${sid}/`, { body: body(2000), headers: { "Content-Type": "application/json" }, token: su.token });
    expect(ok.status, ok.text).toBe(200);
    const big = await h.patch(`/api/stations/${sid}/`, { body: body(2001), headers: { "Content-Type": "application/json" }, token: su.token });
    expect(big.status).toBe(413);
  });

  it("answers 413 for a chunked body without Content-Length", async () => {
    const { request } = await import("node:http");
    const url = new URL(`${small.url}/api/stations/${sid}/`);
    const result = await new Promise<{ status: number; text: string }>((resolvePromise, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: "PATCH",
        headers: { "Content-Type": "application/json", Authorization: `Token ${su.token}`, "Transfer-Encoding": "chunked" } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolvePromise({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      });
      req.on("error", reject);
      req.write('{"remarks":"');
      for (let i = 0; i < 5; i++) req.write("x".repeat(1000));
      req.end('"}');
    });
    expect(result.status).toBe(413);
    expect(result.text).toBe('{"detail":"Request body too large; the limit is 2000 bytes."}');
    expect((await h.get(`/api/stations/${sid}/`)).json.remarks).not.toMatch(/^x{5000}$/);
  });

  it("checks permission before the size: anonymous 401, other user 403", async () => {
    const anon = await send("POST", base(sid, "files"), { descr: "big" }, { name: "big.pdf", bytes: "x".repeat(5000) }, undefined, h);
    expect(anon.status).toBe(401);
    const u = await f.user();
    const other = await send("POST", base(sid, "files"), { descr: "big" }, { name: "big.pdf", bytes: "x".repeat(5000) }, u.token, h);
    expect(other.status).toBe(403);
  });

  it("checks the path before the size: 404 for a missing station", async () => {
    const r = await send("POST", base(999999, "files"), { descr: "big" }, { name: "big.pdf", bytes: "x".repeat(5000) }, su.token, h);
    expect(r.status).toBe(404);
  });
});

describe("events (§10)", () => {
  let et: number;
  beforeAll(async () => {
    et = await f.eventType("Maintenance");
  });
  const events = (sid: number) => `/api/stations/${sid}/events/`;

  it("creates an event, fields in order", async () => {
    const sid = await f.station();
    const r = await http.post(events(sid), { json: { date: "2020-05-01", user: " joe ", report: "Replaced sensor", type: et }, token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.json)).toEqual(EVENT_KEYS);
    expect(r.json).toEqual({ id: r.json.id, last_modified: r.json.last_modified, date: "2020-05-01", user: "joe", report: "Replaced sensor", gentity: sid, type: et });
    expect(r.json.last_modified).toMatch(LAST_MODIFIED);
    expect((await http.get(`${events(sid)}${r.json.id}/`)).json).toEqual(r.json);
  });

  it("creates from a form body with defaults", async () => {
    const sid = await f.station();
    const r = await http.post(events(sid), { form: { date: "2021-01-01", type: String(et) }, token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ user: "", report: "", gentity: sid, type: et });
  });

  it("requires date and type", async () => {
    const sid = await f.station();
    expect400(await http.post(events(sid), { json: {}, token: admin.token }), { date: ["This field is required."], type: ["This field is required."] });
    expect400(await http.post(events(sid), { json: { date: null, type: null }, token: admin.token }), { date: ["This field may not be null."], type: ["This field may not be null."] });
  });

  it("validates date, user length and type", async () => {
    const sid = await f.station();
    expect400(await http.post(events(sid), { json: { date: "2020-5-1", type: et }, token: admin.token }), { date: ["Date has wrong format. Use one of these formats instead: YYYY-MM-DD."] });
    expect400(await http.post(events(sid), { json: { date: "2020-05-01", type: et, user: "u".repeat(65) }, token: admin.token }), { user: ["Ensure this field has no more than 64 characters."] });
    expect((await http.post(events(sid), { json: { date: "2020-05-01", type: et, user: "u".repeat(64) }, token: admin.token })).status).toBe(201);
    expect400(await http.post(events(sid), { json: { date: "2020-05-01", type: 999999 }, token: admin.token }), { type: ['Invalid pk "999999" - object does not exist.'] });
    expect400(await http.post(events(sid), { json: { date: "2020-05-01", type: "abc" }, token: admin.token }), { type: ["Incorrect type. Expected pk value, received str."] });
    expect((await http.post(events(sid), { json: { date: "2020-05-01", type: { id: et } }, token: admin.token })).status).toBe(201);
  });

  it("accepts gentity equal to the path station, refuses another, and never changes it", async () => {
    const sid = await f.station();
    const other = await f.station();
    expect((await http.post(events(sid), { json: { date: "2020-05-01", type: et, gentity: sid }, token: admin.token })).status).toBe(201);
    expect400(await http.post(events(sid), { json: { date: "2020-05-01", type: et, gentity: other }, token: admin.token }), { gentity: ["Must equal the station id in the URL."] });
    const e = await f.event(sid, { date: "2020-01-01", typeId: et });
    const r = await http.patch(`${events(sid)}${e}/`, { json: { gentity: other }, token: admin.token });
    expect(r.status).toBe(400);
    expect(Object.keys(r.json)).toEqual(["gentity"]);
  });

  it("PUT requires date and type and keeps omitted fields; PATCH writes only what is sent", async () => {
    const sid = await f.station();
    const et2 = await f.eventType();
    const e = await f.event(sid, { date: "2020-01-01", user: "ann", report: "rep", typeId: et });
    expect400(await http.put(`${events(sid)}${e}/`, { json: { user: "x" }, token: admin.token }), { date: ["This field is required."], type: ["This field is required."] });
    const a = await http.put(`${events(sid)}${e}/`, { form: { date: "2020-02-02", type: String(et2) }, token: admin.token });
    expect(a.status, a.text).toBe(200);
    expect(a.json).toMatchObject({ date: "2020-02-02", type: et2, user: "ann", report: "rep" });
    const b = await http.patch(`${events(sid)}${e}/`, { json: { report: "new report" }, token: admin.token });
    expect(b.status).toBe(200);
    expect(b.json).toMatchObject({ date: "2020-02-02", type: et2, user: "ann", report: "new report" });
    expect(Date.parse(b.json.last_modified)).toBeGreaterThanOrEqual(Date.parse(a.json.last_modified));
  });

  it("DELETE answers 204", async () => {
    const sid = await f.station();
    const e = await f.event(sid, { date: "2020-01-01", typeId: et });
    const r = await http.delete(`${events(sid)}${e}/`, { token: admin.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await http.get(`${events(sid)}${e}/`)).status).toBe(404);
    expect((await http.get(`/api/eventtypes/${et}/`)).status).toBe(200);
  });

  it("answers 404 for an event of another station, for every method", async () => {
    const sid = await f.station();
    const other = await f.station();
    const e = await f.event(sid, { date: "2020-01-01", typeId: et });
    for (const [method, options] of [["put", { json: { date: "2020-01-02", type: et } }], ["patch", { json: { report: "x" } }], ["delete", {}]] as const) {
      const r = await http[method](`${events(other)}${e}/`, { ...options, token: admin.token });
      expect(r.status, method).toBe(404);
      expect(r.json).toEqual({ detail: "Not found." });
    }
    expect((await http.post(events(999999), { json: { date: "2020-01-01", type: et }, token: admin.token })).status).toBe(404);
    expect((await http.get(`${events(sid)}${e}/`)).json.report).toBe("");
  });
});
