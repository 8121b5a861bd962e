-- CreateTable
CREATE TABLE "job" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "kind" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "payload" TEXT NOT NULL DEFAULT '{}',
    "status" TEXT NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "max_attempts" INTEGER NOT NULL DEFAULT 5,
    "run_after" DATETIME NOT NULL,
    "queued_at" DATETIME NOT NULL,
    "started_at" DATETIME,
    "finished_at" DATETIME,
    "lease_owner" TEXT,
    "lease_until" DATETIME,
    "error" TEXT,
    "result" TEXT
);

-- CreateIndex
CREATE INDEX "job_status_run_after_idx" ON "job"("status", "run_after");

-- CreateIndex
CREATE INDEX "job_key_id_idx" ON "job"("key", "id");


-- Written by hand (Prisma cannot express partial indexes): at most one queued job per key. An
-- enqueue of a key that already has a queued job updates that job instead (coalescing,
-- lib/jobs/queue.ts: INSERT … ON CONFLICT ("key") WHERE "status" = 'queued').
CREATE UNIQUE INDEX "job_queued_key" ON "job"("key") WHERE "status" = 'queued';
