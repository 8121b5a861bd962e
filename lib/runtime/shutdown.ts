import { bridge, type ShutdownHook } from "@/lib/runtime/bridge";

/**
 * Work to finish before the process exits (a job runner gives its jobs back). The hooks are on
 * the bridge (lib/runtime/bridge.ts), where the server finds them on SIGTERM/SIGINT: it stops
 * accepting connections, runs them (bounded) and exits. Scripts call runShutdownHooks() themselves.
 */
export type { ShutdownHook };

function hooks(): ShutdownHook[] {
  return bridge().shutdownHooks;
}

/** Registers `fn` to run at shutdown; returns the function that unregisters it. */
export function onShutdown(fn: ShutdownHook): () => void {
  hooks().push(fn);
  return () => {
    const list = hooks();
    const i = list.indexOf(fn);
    if (i >= 0) list.splice(i, 1);
  };
}

/** Waits for `promise`, at most `ms`. */
export async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Runs every hook at once and waits for them, at most `timeoutMs`; a failing hook is logged. */
export async function runShutdownHooks(timeoutMs = 25_000): Promise<void> {
  const running = hooks().splice(0).map((hook) => Promise.resolve().then(hook).catch((e) => console.error("shutdown hook failed:", e)));
  await within(Promise.all(running), timeoutMs);
}
