// npm run worker — runs the job queue's jobs in a process of its own (lib/jobs/worker.ts), for
// deployments that set ENHYDRIS_JOB_RUNNER=false on the web servers or want more runners. Its job
// threads load this module too (through tsx) and serve the jobs its runner sends them.
import { registerCapabilities } from "@/lib/capabilities";
import { runWorkerProcess } from "@/lib/jobs/worker";

registerCapabilities();
runWorkerProcess({ entry: import.meta.url }).catch((e) => {
  console.error(e);
  process.exit(1);
});
