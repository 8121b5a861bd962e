-- The account's language and the Greek descriptions of the lookups (public.md §3).

-- AlterTable
ALTER TABLE "users" ADD COLUMN "language" TEXT COLLATE "C" NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "station_type" ADD COLUMN "descr_el" TEXT COLLATE "C" NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "event_type" ADD COLUMN "descr_el" TEXT COLLATE "C" NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "variable" ADD COLUMN "descr_el" TEXT COLLATE "C" NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "file_type" ADD COLUMN "descr_el" TEXT COLLATE "C" NOT NULL DEFAULT '';

