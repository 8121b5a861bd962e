import { apiRouter } from "@/lib/api/routes";

// Every path under /api/ goes through one router (docs/decisions/0002-one-api-router.md).
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const handle = (request: Request) => apiRouter().handle(request);
export { handle as GET, handle as HEAD, handle as POST, handle as PUT, handle as PATCH, handle as DELETE, handle as OPTIONS };
