-- CreateTable
CREATE TABLE "replication_source" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "name" TEXT NOT NULL DEFAULT '',
    "url" TEXT NOT NULL,
    "username" TEXT NOT NULL DEFAULT '',
    "password" TEXT NOT NULL DEFAULT '',
    "token" TEXT NOT NULL DEFAULT '',
    "query" TEXT NOT NULL DEFAULT '',
    "interval" INTEGER NOT NULL DEFAULT 0,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "prune" BOOLEAN NOT NULL DEFAULT false,
    "last_modified" DATETIME
);

-- CreateTable
CREATE TABLE "replication_map" (
    "source_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "remote_id" INTEGER NOT NULL,
    "local_id" INTEGER NOT NULL,
    "parent" INTEGER,
    "fingerprint" TEXT NOT NULL DEFAULT '',
    "records_mark" TEXT,

    PRIMARY KEY ("source_id", "kind", "remote_id"),
    CONSTRAINT "replication_map_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "replication_source" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- AlterTable (by hand: a new nullable column with its reference needs no table rebuild)
ALTER TABLE "station" ADD COLUMN "replicated_from" INTEGER REFERENCES "replication_source" ("id") ON DELETE SET NULL ON UPDATE CASCADE;
CREATE INDEX "station_replicated_from_idx" ON "station"("replicated_from");

-- CreateIndex
CREATE INDEX "replication_map_kind_local_id_idx" ON "replication_map"("kind", "local_id");

