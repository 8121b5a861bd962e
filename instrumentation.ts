// Runs once when the server starts, before it answers requests.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.NEXT_PHASE === "phase-production-build") return;
  const { startup } = await import("@/lib/server/startup");
  await startup();
}
