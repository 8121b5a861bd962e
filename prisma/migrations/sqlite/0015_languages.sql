-- The account's language and the Greek descriptions of the lookups (public.md §3).
-- ADD COLUMN rather than Prisma's table rebuild: rebuilding would drop the tables' triggers
-- (the metadata version of migration 0009 on "variable").

-- AlterTable
ALTER TABLE "users" ADD COLUMN "language" TEXT NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "station_type" ADD COLUMN "descr_el" TEXT NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "event_type" ADD COLUMN "descr_el" TEXT NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "variable" ADD COLUMN "descr_el" TEXT NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "file_type" ADD COLUMN "descr_el" TEXT NOT NULL DEFAULT '';
