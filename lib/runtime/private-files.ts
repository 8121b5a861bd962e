import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname, resolve } from "node:path";

/**
 * Files the service keeps at rest (the SQLite database and its WAL and SHM, backups, media, the
 * e-mail outbox, the generated secret key) are created readable by the service's user only:
 * files 0600, directories 0700, whatever the process's umask (a umask of 000 would otherwise
 * give 0644 databases and 0777 directories). The mode is set explicitly after creation, since
 * the umask only ever takes bits away from the mode asked for. What exists already (a
 * directory an operator made, say) is left as it is.
 */
export const PRIVATE_FILE = 0o600;
export const PRIVATE_DIRECTORY = 0o700;

/** Creates `dir` and its missing parents, each 0700; an existing directory is left as it is. */
export function makePrivateDirectory(dir: string): void {
  const target = resolve(/* turbopackIgnore: true */ dir);
  const first = mkdirSync(/* turbopackIgnore: true */ target, { recursive: true, mode: PRIVATE_DIRECTORY });
  if (first === undefined) return;
  // mkdir returns the first directory it created; it and those below it up to `dir` are new.
  const stop = dirname(resolve(/* turbopackIgnore: true */ first));
  for (let d = target; d !== stop && d !== dirname(d); d = dirname(d)) chmodSync(/* turbopackIgnore: true */ d, PRIVATE_DIRECTORY);
}

/** Creates an empty file 0600 (and its missing directories 0700) unless it exists; true when it was created. */
export function createPrivateFile(path: string): boolean {
  makePrivateDirectory(dirname(path));
  let fd: number;
  try {
    fd = openSync(/* turbopackIgnore: true */ path, "wx", PRIVATE_FILE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    fchmodSync(fd, PRIVATE_FILE);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Writes a new file 0600 (`wx`: refused with EEXIST when it exists). */
export function writeNewPrivateFileSync(path: string, data: string | Uint8Array): void {
  const fd = openSync(/* turbopackIgnore: true */ path, "wx", PRIVATE_FILE);
  try {
    fchmodSync(fd, PRIVATE_FILE);
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
  } finally {
    closeSync(fd);
  }
}

/** The same, asynchronously (uploads). */
export async function writeNewPrivateFile(path: string, data: string | Uint8Array): Promise<void> {
  const handle = await open(/* turbopackIgnore: true */ path, "wx", PRIVATE_FILE);
  try {
    await handle.chmod(PRIVATE_FILE);
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
}

/** The SQLite database file: created empty and 0600 before SQLite opens it, so that its WAL and SHM, which SQLite gives the database's mode, are 0600 too. */
export function ensurePrivateSqliteFile(path: string): void {
  if (path !== ":memory:") createPrivateFile(path);
}
