-- CreateTable
CREATE TABLE "telemetry" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "station_id" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "data_timezone" TEXT NOT NULL DEFAULT 'UTC',
    "fetch_interval_minutes" INTEGER NOT NULL,
    "fetch_offset_minutes" INTEGER NOT NULL,
    "device_locator" TEXT NOT NULL DEFAULT '',
    "username" TEXT NOT NULL DEFAULT '',
    "password" TEXT NOT NULL DEFAULT '',
    "remote_station_id" TEXT NOT NULL DEFAULT '',
    "additional_config" TEXT NOT NULL DEFAULT '{}',
    "verify_tls" BOOLEAN NOT NULL DEFAULT true,
    "stale_after_minutes" INTEGER,
    "stuck_after_values" INTEGER,
    "alert_emails" TEXT NOT NULL DEFAULT '[]',
    "next_fetch" DATETIME NOT NULL,
    "last_fetch" DATETIME,
    "status" TEXT NOT NULL DEFAULT 'never',
    "created" DATETIME NOT NULL,
    "last_modified" DATETIME NOT NULL,
    CONSTRAINT "telemetry_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "telemetry_sensor" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "telemetry_id" INTEGER NOT NULL,
    "sensor_id" TEXT NOT NULL,
    "timeseries_group_id" INTEGER NOT NULL,
    "stale_since" DATETIME,
    "stuck_since" DATETIME,
    CONSTRAINT "telemetry_sensor_telemetry_id_fkey" FOREIGN KEY ("telemetry_id") REFERENCES "telemetry" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "telemetry_sensor_timeseries_group_id_fkey" FOREIGN KEY ("timeseries_group_id") REFERENCES "timeseries_group" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "telemetry_log" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "telemetry_id" INTEGER NOT NULL,
    "started" DATETIME NOT NULL,
    "finished" DATETIME NOT NULL,
    "status" TEXT NOT NULL,
    "records" INTEGER NOT NULL DEFAULT 0,
    "sensor" TEXT,
    "error_name" TEXT NOT NULL DEFAULT '',
    "message" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "telemetry_log_telemetry_id_fkey" FOREIGN KEY ("telemetry_id") REFERENCES "telemetry" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "telemetry_station_id_key" ON "telemetry"("station_id");

-- CreateIndex
CREATE INDEX "telemetry_next_fetch_idx" ON "telemetry"("next_fetch");

-- CreateIndex
CREATE UNIQUE INDEX "telemetry_sensor_telemetry_id_sensor_id_key" ON "telemetry_sensor"("telemetry_id", "sensor_id");

-- CreateIndex
CREATE UNIQUE INDEX "telemetry_sensor_timeseries_group_id_key" ON "telemetry_sensor"("timeseries_group_id");

-- CreateIndex
CREATE INDEX "telemetry_log_telemetry_id_id_idx" ON "telemetry_log"("telemetry_id", "id");

-- CreateIndex
CREATE INDEX "telemetry_log_finished_idx" ON "telemetry_log"("finished");

