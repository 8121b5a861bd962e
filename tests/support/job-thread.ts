// The module of the job threads in the runner's tests (tests/http/jobs-queue.test.ts): the test
// kinds only, so that a thread loads quickly through tsx.
import { serveJobThread } from "@/lib/jobs/threads";
import { TEST_KINDS } from "@/tests/support/job-kinds";

serveJobThread(TEST_KINDS);
