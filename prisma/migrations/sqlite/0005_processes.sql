-- CreateTable
CREATE TABLE "process" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "timeseries_group_id" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "config" TEXT NOT NULL,
    "target_group_id" INTEGER,
    "unique_key" TEXT,
    "created" DATETIME NOT NULL,
    "last_modified" DATETIME NOT NULL,
    "dirty_from" BIGINT,
    "dirty_since" DATETIME,
    "running_from" BIGINT,
    "inputs" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "process_timeseries_group_id_fkey" FOREIGN KEY ("timeseries_group_id") REFERENCES "timeseries_group" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "process_target_group_id_fkey" FOREIGN KEY ("target_group_id") REFERENCES "timeseries_group" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "process_target_group_id_idx" ON "process"("target_group_id");

-- CreateIndex
CREATE UNIQUE INDEX "process_timeseries_group_id_unique_key_key" ON "process"("timeseries_group_id", "unique_key");

