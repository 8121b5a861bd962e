-- AlterTable
ALTER TABLE "station" ADD COLUMN     "replicated_from" INTEGER;

-- CreateTable
CREATE TABLE "replication_source" (
    "id" SERIAL NOT NULL,
    "name" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "url" TEXT COLLATE "C" NOT NULL,
    "username" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "password" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "token" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "query" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "interval" INTEGER NOT NULL DEFAULT 0,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "prune" BOOLEAN NOT NULL DEFAULT false,
    "last_modified" TIMESTAMP(3),

    CONSTRAINT "replication_source_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "replication_map" (
    "source_id" INTEGER NOT NULL,
    "kind" TEXT COLLATE "C" NOT NULL,
    "remote_id" INTEGER NOT NULL,
    "local_id" INTEGER NOT NULL,
    "parent" INTEGER,
    "fingerprint" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "records_mark" TEXT COLLATE "C",

    CONSTRAINT "replication_map_pkey" PRIMARY KEY ("source_id","kind","remote_id")
);

-- CreateIndex
CREATE INDEX "replication_map_kind_local_id_idx" ON "replication_map"("kind", "local_id");

-- CreateIndex
CREATE INDEX "station_replicated_from_idx" ON "station"("replicated_from");

-- AddForeignKey
ALTER TABLE "station" ADD CONSTRAINT "station_replicated_from_fkey" FOREIGN KEY ("replicated_from") REFERENCES "replication_source"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "replication_map" ADD CONSTRAINT "replication_map_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "replication_source"("id") ON DELETE CASCADE ON UPDATE CASCADE;

