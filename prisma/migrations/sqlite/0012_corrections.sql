-- AlterTable
ALTER TABLE "replication_map" ADD COLUMN "corrections_mark" INTEGER;

-- AlterTable
ALTER TABLE "synoptic_timeseries_group" ADD COLUMN "evaluated_through" BIGINT;

-- CreateTable
CREATE TABLE "correction" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "token" TEXT NOT NULL,
    "timeseries_id" INTEGER NOT NULL,
    "user_id" INTEGER,
    "username" TEXT NOT NULL DEFAULT '',
    "created" DATETIME NOT NULL,
    "kind" TEXT NOT NULL,
    "detail" TEXT NOT NULL DEFAULT '',
    "first_timestamp" BIGINT NOT NULL,
    "last_timestamp" BIGINT NOT NULL,
    "records_before" INTEGER NOT NULL,
    "records_after" INTEGER NOT NULL,
    "comment" TEXT NOT NULL DEFAULT '',
    "reverts" INTEGER,
    "before" BLOB NOT NULL,
    "written" BLOB NOT NULL,
    CONSTRAINT "correction_timeseries_id_fkey" FOREIGN KEY ("timeseries_id") REFERENCES "timeseries" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "correction_token_key" ON "correction"("token");

-- CreateIndex
CREATE UNIQUE INDEX "correction_reverts_key" ON "correction"("reverts");

-- CreateIndex
CREATE INDEX "correction_timeseries_id_id_idx" ON "correction"("timeseries_id", "id");

