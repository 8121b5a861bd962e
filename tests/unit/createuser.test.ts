import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "@/lib/auth/passwords";

/**
 * `npm run createuser` / `createsuperuser` (scripts/createuser.ts) as a user runs them: --help,
 * refused arguments (exit 2, a message and the usage), the API's password rules, and the
 * password asked for when --password is not given: read from standard input when it is not a
 * terminal, asked for twice and not shown on a terminal (a pseudo-terminal from script(1)).
 */
const ROOT = resolve(__dirname, "..", "..");
const TSX = join(ROOT, "node_modules", ".bin", "tsx");
const SCRIPT = ["--tsconfig", "tsconfig.json", "scripts/createuser.ts"];

let dir: string;
let databaseUrl: string;
let database: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "enhydris-createuser-"));
  database = join(dir, "users.db");
  databaseUrl = `file:${database}`;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Outcome { code: number | null; stdout: string; stderr: string }

/**
 * The exit status, with what was printed in the difference shown when it is not `code` (not in
 * the assertion's message: vitest reads a message holding a stack trace as its own and fails).
 */
function expectExit(r: { code: number | null; stderr?: string; transcript?: string }, code: number): void {
  const printed = r.stderr ?? r.transcript;
  expect({ code: r.code, printed }).toEqual({ code, printed: r.code === code ? printed : "" });
}

const ENV = () => ({ ...process.env, DATABASE_URL: databaseUrl, ENHYDRIS_DEMO_DATA: "0", ENHYDRIS_SECRET_KEY: "createuser-test" });

/** Runs the command with `args`; `input`, when given, is its standard input (a pipe), then closed. */
function createuser(args: string[], input?: string): Promise<Outcome> {
  return new Promise((done) => {
    const child = spawn(TSX, [...SCRIPT, ...args], { cwd: ROOT, env: ENV(), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => done({ code, stdout, stderr }));
    child.stdin.end(input ?? "");
  });
}

/**
 * Runs the command on a pseudo-terminal (script(1)): each time the output shows one more
 * "Password" prompt, the next of `answers` is typed (with Enter). The transcript is everything
 * the terminal showed.
 */
function createuserOnTerminal(args: string[], answers: string[]): Promise<{ code: number | null; transcript: string }> {
  const command = [TSX, ...SCRIPT, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  return new Promise((done) => {
    const child = spawn("script", ["-qefc", command, "/dev/null"], { cwd: ROOT, env: ENV(), stdio: ["pipe", "pipe", "pipe"] });
    let transcript = "";
    let typed = 0;
    const onOutput = (d: Buffer) => {
      transcript += d;
      const prompts = transcript.match(/Password( \(again\))?: /g)?.length ?? 0;
      while (typed < prompts && typed < answers.length) child.stdin.write(`${answers[typed++]}\r`);
    };
    child.stdout.on("data", onOutput);
    child.stderr.on("data", onOutput);
    child.on("exit", (code) => {
      child.stdin.end();
      done({ code, transcript });
    });
  });
}

async function storedUser(username: string): Promise<{ password: string; is_superuser: number; can_add_stations: number; email: string } | undefined> {
  const conn = new Database(database, { readonly: true });
  try {
    return conn.prepare("SELECT password, is_superuser, can_add_stations, email FROM users WHERE username = ?").get(username) as never;
  } finally {
    conn.close();
  }
}

describe("createuser's help and refused arguments", () => {
  it("--help prints the help and exits 0, creating nothing", async () => {
    for (const args of [["--help"], ["-h"], ["--superuser", "--help"]]) {
      const r = await createuser(args);
      expectExit(r, 0);
      expect(r.stdout).toContain("--username NAME");
      expect(r.stdout).toContain("--password PASSWORD");
      expect(r.stdout).toMatch(/without it, it is asked for twice, not shown, on a\s+terminal/);
      expect(r.stdout).toContain(args.includes("--superuser") ? "npm run createsuperuser --" : "npm run createuser --");
      expect(r.stderr).toBe("");
    }
    expect(existsSync(database)).toBe(false);
  });

  it.each([
    [["--username", "alice", "--bogus"], "Unknown option '--bogus'"],
    [["--username"], "argument missing"],
    [["alice"], "Unexpected argument 'alice'"],
    [["--email", "a@example.org"], "--username is required."],
    [["--username", "no spaces", "--password", "long-enough-1"], "Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters."],
    [["--username", "alice", "--email", "not-an-address", "--password", "long-enough-1"], "--email: not-an-address: Enter a valid email address."],
  ])("%j: a clear message and the usage, exit 2", async (args, message) => {
    const r = await createuser(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain("usage: npm run createuser -- --username NAME");
    expect(r.stdout).toBe("");
  });

  it.each([
    ["short-1", "This password is too short. It must contain at least 8 characters."],
    ["12345678901", "This password is entirely numeric."],
    ["Carol-The-Great", "The password is too similar to the username."],
  ])("--password %j is refused by the API's rules, exit 2, nothing created", async (password, message) => {
    const r = await createuser(["--username", "carol-the-great", "--password", password]);
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe(message);
    expect(existsSync(database) ? await storedUser("carol-the-great") : undefined).toBeUndefined();
  });
});

describe("createuser's password", () => {
  it("--password creates the user with it", async () => {
    const r = await createuser(["--username", "given", "--email", "given@example.org", "--password", "given-pass-1", "--can-add-stations"]);
    expectExit(r, 0);
    expect(r.stdout).toMatch(/^Created user "given" \(id \d+\)\.\n$/);
    const user = (await storedUser("given"))!;
    expect(await verifyPassword("given-pass-1", user.password)).toBe(true);
    expect(user).toMatchObject({ email: "given@example.org", is_superuser: 0, can_add_stations: 1 });
  });

  it("without --password and not on a terminal: the first line of standard input, as it is", async () => {
    const r = await createuser(["--superuser", "--username", "piped"], " piped pass word \nignored\n");
    expectExit(r, 0);
    expect(r.stdout).toMatch(/^Created superuser "piped" \(id \d+\)\.\n$/);
    const user = (await storedUser("piped"))!;
    expect(await verifyPassword(" piped pass word ", user.password)).toBe(true);
    expect(user).toMatchObject({ is_superuser: 1, can_add_stations: 1 });
  });

  it("standard input: a refused password or none at all is exit 2, nothing created", async () => {
    const short = await createuser(["--username", "piped-short"], "short\n");
    expect(short.code).toBe(2);
    expect(short.stderr).toContain("This password is too short. It must contain at least 8 characters.");
    const none = await createuser(["--username", "piped-none"], "");
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("No password given: use --password, type it at a terminal, or send it as the first line of standard input.");
    expect(await storedUser("piped-short")).toBeUndefined();
    expect(await storedUser("piped-none")).toBeUndefined();
  });

  it("an existing username is refused before any password is asked for (exit 1)", async () => {
    const r = await createuser(["--username", "given"], "another-pass-1\n");
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe("A user with that username already exists.");
  });

  it("on a terminal: asked for twice, never shown; a refused or mistyped one is asked for again", async () => {
    const r = await createuserOnTerminal(["--username", "typed"], ["abc1", "first-try-pass", "second-try-pass", "typed-pass-word", "typed-pass-word"]);
    expectExit(r, 0);
    expect(r.transcript).toContain("This password is too short. It must contain at least 8 characters. Try again.");
    expect(r.transcript).toContain("The two password fields didn’t match. Try again.");
    expect(r.transcript.match(/Password: /g)).toHaveLength(3);
    expect(r.transcript.match(/Password \(again\): /g)).toHaveLength(2);
    expect(r.transcript).toMatch(/Created user "typed" \(id \d+\)\./);
    for (const typed of ["abc1", "first-try-pass", "second-try-pass", "typed-pass-word"]) expect(r.transcript).not.toContain(typed);
    expect(await verifyPassword("typed-pass-word", (await storedUser("typed"))!.password)).toBe(true);
  });

  it("on a terminal: three refusals end with exit 2, nothing created", async () => {
    const r = await createuserOnTerminal(["--username", "unlucky-one"], ["1234567890", "short", "UNLUCKY-ONE"]);
    expectExit(r, 2);
    expect(r.transcript).toContain("The password is too similar to the username.\r\nusage:");
    expect(await storedUser("unlucky-one")).toBeUndefined();
  });
});
