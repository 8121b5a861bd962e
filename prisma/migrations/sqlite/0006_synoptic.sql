-- CreateTable
CREATE TABLE "synoptic_group" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "last_modified" DATETIME,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "display_timezone" TEXT NOT NULL DEFAULT 'Etc/GMT',
    "fresh_time_limit" INTEGER NOT NULL,
    "early_warning_emails" TEXT NOT NULL DEFAULT '[]',
    "creator_id" INTEGER,
    CONSTRAINT "synoptic_group_creator_id_fkey" FOREIGN KEY ("creator_id") REFERENCES "users" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "synoptic_group_station" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "synoptic_group_id" INTEGER NOT NULL,
    "station_id" INTEGER NOT NULL,
    "order" INTEGER NOT NULL,
    CONSTRAINT "synoptic_group_station_synoptic_group_id_fkey" FOREIGN KEY ("synoptic_group_id") REFERENCES "synoptic_group" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "synoptic_group_station_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "synoptic_timeseries_group" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "synoptic_group_station_id" INTEGER NOT NULL,
    "timeseries_group_id" INTEGER NOT NULL,
    "order" INTEGER NOT NULL,
    "title" TEXT NOT NULL DEFAULT '',
    "subtitle" TEXT NOT NULL DEFAULT '',
    "low_limit" REAL,
    "high_limit" REAL,
    "default_chart_min" REAL,
    "default_chart_max" REAL,
    "rate_of_change" TEXT,
    CONSTRAINT "synoptic_timeseries_group_synoptic_group_station_id_fkey" FOREIGN KEY ("synoptic_group_station_id") REFERENCES "synoptic_group_station" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "synoptic_timeseries_group_timeseries_group_id_fkey" FOREIGN KEY ("timeseries_group_id") REFERENCES "timeseries_group" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "synoptic_alarm" (
    "synoptic_timeseries_group_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "since" BIGINT NOT NULL,

    PRIMARY KEY ("synoptic_timeseries_group_id", "kind"),
    CONSTRAINT "synoptic_alarm_synoptic_timeseries_group_id_fkey" FOREIGN KEY ("synoptic_timeseries_group_id") REFERENCES "synoptic_timeseries_group" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "synoptic_warning" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "synoptic_group_id" INTEGER NOT NULL,
    "created_at" DATETIME NOT NULL,
    "recipients" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "items" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "sent_at" DATETIME,
    "error" TEXT,
    CONSTRAINT "synoptic_warning_synoptic_group_id_fkey" FOREIGN KEY ("synoptic_group_id") REFERENCES "synoptic_group" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "synoptic_group_slug_key" ON "synoptic_group"("slug");

-- CreateIndex
CREATE INDEX "synoptic_group_creator_id_idx" ON "synoptic_group"("creator_id");

-- CreateIndex
CREATE INDEX "synoptic_group_station_station_id_idx" ON "synoptic_group_station"("station_id");

-- CreateIndex
CREATE UNIQUE INDEX "synoptic_group_station_synoptic_group_id_station_id_key" ON "synoptic_group_station"("synoptic_group_id", "station_id");

-- CreateIndex
CREATE INDEX "synoptic_timeseries_group_timeseries_group_id_idx" ON "synoptic_timeseries_group"("timeseries_group_id");

-- CreateIndex
CREATE UNIQUE INDEX "synoptic_timeseries_group_synoptic_group_station_id_timeseries_group_id_key" ON "synoptic_timeseries_group"("synoptic_group_station_id", "timeseries_group_id");

-- CreateIndex
CREATE INDEX "synoptic_warning_synoptic_group_id_id_idx" ON "synoptic_warning"("synoptic_group_id", "id");

