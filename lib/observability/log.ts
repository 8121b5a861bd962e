import { logger, redact } from "@/lib/observability/logger.mjs";

/**
 * Server-side logging that never writes secrets (lib/observability/logger.mjs masks password
 * hashes, token keys and their hashes, password fields and reset-link tokens).
 */
export { logger, redact };

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}\n${error.stack?.split("\n").slice(1, 8).join("\n") ?? ""}`;
  return String(error);
}

export function logError(where: string, error: unknown): void {
  logger().error(`${where}: ${describe(error)}`);
}
