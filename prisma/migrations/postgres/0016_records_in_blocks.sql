-- AlterTable
ALTER TABLE "timeseries_block" ADD COLUMN     "first_timestamp" BIGINT,
ADD COLUMN     "last_timestamp" BIGINT,
ADD COLUMN     "records" BYTEA;


-- Written by hand (docs/decisions/0019-records-in-blocks.md). A day's encoded records are
-- already compact: never compress them (EXTERNAL), and keep a row in the heap up to a page
-- (toast_tuple_target), so that only days beyond 8 KB are moved out of line to TOAST.
ALTER TABLE "timeseries_block" ALTER COLUMN "records" SET STORAGE EXTERNAL;
ALTER TABLE "timeseries_block" SET (toast_tuple_target = 8160);

-- The records stored before this migration are converted into day blocks by a job, series by
-- series, while the service serves (lib/records/convert.ts).
INSERT INTO "job" ("kind", "key", "payload", "status", "attempts", "max_attempts", "run_after", "queued_at")
SELECT 'records.convert', 'records.convert', '{}', 'queued', 0, 5, (now() AT TIME ZONE 'UTC')::timestamp(3), (now() AT TIME ZONE 'UTC')::timestamp(3)
WHERE EXISTS (SELECT 1 FROM "timeseries_record");
