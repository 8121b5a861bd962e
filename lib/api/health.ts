import type { RouteContext } from "@/lib/routing/router";
import { json } from "@/lib/http/respond";
import { checkHealth } from "@/lib/server/health";

/** `GET api/health/`: 200 when the database answers and is migrated, else 503 naming the failing part. */
export async function health(_ctx: RouteContext): Promise<Response> {
  const report = await checkHealth();
  return json(report, report.status === "ok" ? 200 : 503, { "Cache-Control": "no-store" });
}
