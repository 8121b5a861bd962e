import { spawn, type ChildProcess } from "node:child_process";
import { ROOT } from "@/tests/support/server";

/** A job worker process of the fault tests (tests/support/job-worker.ts), and its output. */
export interface Worker {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves when the output matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  exited(): Promise<number | null>;
}

const started: ChildProcess[] = [];

/** Kills (SIGKILL) the workers a test left running. */
export function killWorkers(): void {
  for (const w of started.splice(0)) if (w.exitCode === null && w.signalCode === null) w.kill("SIGKILL");
}

/** Starts one; `env` gives at least DATABASE_URL (and JOB_LOG for the test kinds). Leases last 2 s. */
export function startWorker(env: Record<string, string>): Worker {
  // tsx as a loader in this very process (its CLI would run the script in a child that a SIGKILL misses).
  const child = spawn(process.execPath, ["--import", "tsx", "tests/support/job-worker.ts"], {
    cwd: ROOT,
    env: { ...process.env, TSX_TSCONFIG_PATH: "tsconfig.json", ENHYDRIS_JOB_LEASE_SECONDS: "2", JOB_LOG: "/dev/null", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.push(child);
  let output = "";
  const waiters: (() => void)[] = [];
  const collect = (d: Buffer) => {
    output += d;
    for (const w of waiters) w();
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited: () => exit,
    waitFor: (pattern, timeoutMs = 30_000) => new Promise<void>((resolve, reject) => {
      const check = () => {
        if (pattern.test(output)) resolve();
      };
      waiters.push(check);
      check();
      setTimeout(() => reject(new Error(`no ${pattern} in the worker's output:\n${output}`)), timeoutMs).unref();
      void exit.then(() => setTimeout(() => reject(new Error(`the worker exited without ${pattern}:\n${output}`)), 50));
    }),
  };
}
