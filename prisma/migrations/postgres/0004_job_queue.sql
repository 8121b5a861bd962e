-- CreateTable
CREATE TABLE "job" (
    "id" SERIAL NOT NULL,
    "kind" TEXT COLLATE "C" NOT NULL,
    "key" TEXT COLLATE "C" NOT NULL,
    "payload" TEXT COLLATE "C" NOT NULL DEFAULT '{}',
    "status" TEXT COLLATE "C" NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "max_attempts" INTEGER NOT NULL DEFAULT 5,
    "run_after" TIMESTAMP(3) NOT NULL,
    "queued_at" TIMESTAMP(3) NOT NULL,
    "started_at" TIMESTAMP(3),
    "finished_at" TIMESTAMP(3),
    "lease_owner" TEXT COLLATE "C",
    "lease_until" TIMESTAMP(3),
    "error" TEXT COLLATE "C",
    "result" TEXT COLLATE "C",

    CONSTRAINT "job_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "job_status_run_after_idx" ON "job"("status", "run_after");

-- CreateIndex
CREATE INDEX "job_key_id_idx" ON "job"("key", "id");


-- Written by hand (Prisma cannot express partial indexes): at most one queued job per key. An
-- enqueue of a key that already has a queued job updates that job instead (coalescing,
-- lib/jobs/queue.ts: INSERT … ON CONFLICT ("key") WHERE "status" = 'queued').
CREATE UNIQUE INDEX "job_queued_key" ON "job"("key") WHERE "status" = 'queued';
