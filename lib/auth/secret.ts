import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { settings } from "@/lib/config";
import { makePrivateDirectory, writeNewPrivateFileSync } from "@/lib/runtime/private-files";

/**
 * ENHYDRIS_SECRET_KEY, or a key generated at the first start and kept in ./data/secret_key
 * (api.md §14), so that a fresh installation needs no configuration.
 */
let cached: string | undefined;

export function secretKey(): string {
  if (cached) return cached;
  const configured = settings().secretKey;
  if (configured) return (cached = configured);
  const file = resolve(/* turbopackIgnore: true */ process.env.ENHYDRIS_SECRET_KEY_FILE ?? "./data/secret_key");
  if (!existsSync(/* turbopackIgnore: true */ file)) {
    makePrivateDirectory(dirname(file));
    try {
      writeNewPrivateFileSync(file, randomBytes(48).toString("base64url") + "\n");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
  return (cached = readFileSync(/* turbopackIgnore: true */ file, "utf8").trim());
}
