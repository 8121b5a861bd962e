-- AlterTable
ALTER TABLE "timeseries_block" ADD COLUMN "first_timestamp" BIGINT;
ALTER TABLE "timeseries_block" ADD COLUMN "last_timestamp" BIGINT;
ALTER TABLE "timeseries_block" ADD COLUMN "records" BLOB;


-- Written by hand: the records stored before this migration are converted into day blocks by a
-- job, series by series, while the service serves (lib/records/convert.ts,
-- docs/decisions/0019-records-in-blocks.md).
INSERT INTO "job" ("kind", "key", "payload", "status", "attempts", "max_attempts", "run_after", "queued_at")
SELECT 'records.convert', 'records.convert', '{}', 'queued', 0, 5, CAST(ROUND(unixepoch('subsec') * 1000) AS INTEGER), CAST(ROUND(unixepoch('subsec') * 1000) AS INTEGER)
WHERE EXISTS (SELECT 1 FROM "timeseries_record");
