// A job worker process for the fault tests (tests/http/jobs-faults.test.ts): `npm run worker`'s
// runner with the service's kinds plus the test kinds (tests/support/job-kinds.ts). Run with
// tsx; DATABASE_URL and the ENHYDRIS_JOB_* settings come from the environment, JOB_LOG names the
// executions file. Its job threads load this module too: the announcement of replacements is theirs.
import { registerCapabilities } from "@/lib/capabilities";
import { jobHandlers } from "@/lib/jobs/registry";
import { runWorkerProcess } from "@/lib/jobs/worker";
import { records } from "@/lib/records";
import { TEST_KINDS } from "@/tests/support/job-kinds";

// Every replacement of records (the process runs' included) is announced, so that a test can kill the worker in one.
const store = records();
const replaceRecords = store.replace.bind(store);
store.replace = (seriesId, ...rest) => {
  console.log(`replacing records of series ${seriesId}`);
  return replaceRecords(seriesId, ...rest);
};

registerCapabilities();
runWorkerProcess({ entry: import.meta.url, handlers: new Map([...jobHandlers(), ...TEST_KINDS]) }).catch((e) => {
  console.error(e);
  process.exit(1);
});
