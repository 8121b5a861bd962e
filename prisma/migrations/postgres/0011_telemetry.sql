-- CreateTable
CREATE TABLE "telemetry" (
    "id" SERIAL NOT NULL,
    "station_id" INTEGER NOT NULL,
    "type" TEXT COLLATE "C" NOT NULL,
    "data_timezone" TEXT COLLATE "C" NOT NULL DEFAULT 'UTC',
    "fetch_interval_minutes" INTEGER NOT NULL,
    "fetch_offset_minutes" INTEGER NOT NULL,
    "device_locator" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "username" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "password" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "remote_station_id" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "additional_config" TEXT COLLATE "C" NOT NULL DEFAULT '{}',
    "verify_tls" BOOLEAN NOT NULL DEFAULT true,
    "stale_after_minutes" INTEGER,
    "stuck_after_values" INTEGER,
    "alert_emails" TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    "next_fetch" TIMESTAMP(3) NOT NULL,
    "last_fetch" TIMESTAMP(3),
    "status" TEXT COLLATE "C" NOT NULL DEFAULT 'never',
    "created" TIMESTAMP(3) NOT NULL,
    "last_modified" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "telemetry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "telemetry_sensor" (
    "id" SERIAL NOT NULL,
    "telemetry_id" INTEGER NOT NULL,
    "sensor_id" TEXT COLLATE "C" NOT NULL,
    "timeseries_group_id" INTEGER NOT NULL,
    "stale_since" TIMESTAMP(3),
    "stuck_since" TIMESTAMP(3),

    CONSTRAINT "telemetry_sensor_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "telemetry_log" (
    "id" SERIAL NOT NULL,
    "telemetry_id" INTEGER NOT NULL,
    "started" TIMESTAMP(3) NOT NULL,
    "finished" TIMESTAMP(3) NOT NULL,
    "status" TEXT COLLATE "C" NOT NULL,
    "records" INTEGER NOT NULL DEFAULT 0,
    "sensor" TEXT COLLATE "C",
    "error_name" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "message" TEXT COLLATE "C" NOT NULL DEFAULT '',

    CONSTRAINT "telemetry_log_pkey" PRIMARY KEY ("id")
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

-- AddForeignKey
ALTER TABLE "telemetry" ADD CONSTRAINT "telemetry_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "telemetry_sensor" ADD CONSTRAINT "telemetry_sensor_telemetry_id_fkey" FOREIGN KEY ("telemetry_id") REFERENCES "telemetry"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "telemetry_sensor" ADD CONSTRAINT "telemetry_sensor_timeseries_group_id_fkey" FOREIGN KEY ("timeseries_group_id") REFERENCES "timeseries_group"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "telemetry_log" ADD CONSTRAINT "telemetry_log_telemetry_id_fkey" FOREIGN KEY ("telemetry_id") REFERENCES "telemetry"("id") ON DELETE CASCADE ON UPDATE CASCADE;

