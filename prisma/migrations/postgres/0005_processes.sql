-- CreateTable
CREATE TABLE "process" (
    "id" SERIAL NOT NULL,
    "timeseries_group_id" INTEGER NOT NULL,
    "type" TEXT COLLATE "C" NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "config" TEXT COLLATE "C" NOT NULL,
    "target_group_id" INTEGER,
    "unique_key" TEXT COLLATE "C",
    "created" TIMESTAMP(3) NOT NULL,
    "last_modified" TIMESTAMP(3) NOT NULL,
    "dirty_from" BIGINT,
    "dirty_since" TIMESTAMP(3),
    "running_from" BIGINT,
    "inputs" TEXT COLLATE "C" NOT NULL DEFAULT '',

    CONSTRAINT "process_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "process_target_group_id_idx" ON "process"("target_group_id");

-- CreateIndex
CREATE UNIQUE INDEX "process_timeseries_group_id_unique_key_key" ON "process"("timeseries_group_id", "unique_key");

-- AddForeignKey
ALTER TABLE "process" ADD CONSTRAINT "process_timeseries_group_id_fkey" FOREIGN KEY ("timeseries_group_id") REFERENCES "timeseries_group"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "process" ADD CONSTRAINT "process_target_group_id_fkey" FOREIGN KEY ("target_group_id") REFERENCES "timeseries_group"("id") ON DELETE CASCADE ON UPDATE CASCADE;

