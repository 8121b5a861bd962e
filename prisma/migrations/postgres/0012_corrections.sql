-- AlterTable
ALTER TABLE "replication_map" ADD COLUMN     "corrections_mark" INTEGER;

-- AlterTable
ALTER TABLE "synoptic_timeseries_group" ADD COLUMN     "evaluated_through" BIGINT;

-- CreateTable
CREATE TABLE "correction" (
    "id" SERIAL NOT NULL,
    "token" TEXT COLLATE "C" NOT NULL,
    "timeseries_id" INTEGER NOT NULL,
    "user_id" INTEGER,
    "username" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "created" TIMESTAMP(3) NOT NULL,
    "kind" TEXT COLLATE "C" NOT NULL,
    "detail" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "first_timestamp" BIGINT NOT NULL,
    "last_timestamp" BIGINT NOT NULL,
    "records_before" INTEGER NOT NULL,
    "records_after" INTEGER NOT NULL,
    "comment" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "reverts" INTEGER,
    "before" BYTEA NOT NULL,
    "written" BYTEA NOT NULL,

    CONSTRAINT "correction_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "correction_token_key" ON "correction"("token");

-- CreateIndex
CREATE UNIQUE INDEX "correction_reverts_key" ON "correction"("reverts");

-- CreateIndex
CREATE INDEX "correction_timeseries_id_id_idx" ON "correction"("timeseries_id", "id");

-- AddForeignKey
ALTER TABLE "correction" ADD CONSTRAINT "correction_timeseries_id_fkey" FOREIGN KEY ("timeseries_id") REFERENCES "timeseries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

