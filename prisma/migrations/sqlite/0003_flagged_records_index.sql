-- Written by hand (Prisma cannot express partial indexes). The records store reads timestamps
-- and values as plucked columns and the flags only of the records that have any; this index
-- finds those without stepping through every record (lib/records/sqlite-store.ts). Records
-- without flags, nearly all of them, cost nothing more to write.
CREATE INDEX "timeseries_record_flagged" ON "timeseries_record"("timeseries_id", "timestamp") WHERE "flags" <> '';
