-- CreateTable
CREATE TABLE "synoptic_group" (
    "id" SERIAL NOT NULL,
    "last_modified" TIMESTAMP(3),
    "name" TEXT COLLATE "C" NOT NULL,
    "slug" TEXT COLLATE "C" NOT NULL,
    "display_timezone" TEXT COLLATE "C" NOT NULL DEFAULT 'Etc/GMT',
    "fresh_time_limit" INTEGER NOT NULL,
    "early_warning_emails" TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    "creator_id" INTEGER,

    CONSTRAINT "synoptic_group_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "synoptic_group_station" (
    "id" SERIAL NOT NULL,
    "synoptic_group_id" INTEGER NOT NULL,
    "station_id" INTEGER NOT NULL,
    "order" INTEGER NOT NULL,

    CONSTRAINT "synoptic_group_station_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "synoptic_timeseries_group" (
    "id" SERIAL NOT NULL,
    "synoptic_group_station_id" INTEGER NOT NULL,
    "timeseries_group_id" INTEGER NOT NULL,
    "order" INTEGER NOT NULL,
    "title" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "subtitle" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "low_limit" DOUBLE PRECISION,
    "high_limit" DOUBLE PRECISION,
    "default_chart_min" DOUBLE PRECISION,
    "default_chart_max" DOUBLE PRECISION,
    "rate_of_change" TEXT COLLATE "C",

    CONSTRAINT "synoptic_timeseries_group_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "synoptic_alarm" (
    "synoptic_timeseries_group_id" INTEGER NOT NULL,
    "kind" TEXT COLLATE "C" NOT NULL,
    "since" BIGINT NOT NULL,

    CONSTRAINT "synoptic_alarm_pkey" PRIMARY KEY ("synoptic_timeseries_group_id","kind")
);

-- CreateTable
CREATE TABLE "synoptic_warning" (
    "id" SERIAL NOT NULL,
    "synoptic_group_id" INTEGER NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "recipients" TEXT COLLATE "C" NOT NULL,
    "subject" TEXT COLLATE "C" NOT NULL,
    "body" TEXT COLLATE "C" NOT NULL,
    "items" TEXT COLLATE "C" NOT NULL,
    "status" TEXT COLLATE "C" NOT NULL,
    "sent_at" TIMESTAMP(3),
    "error" TEXT COLLATE "C",

    CONSTRAINT "synoptic_warning_pkey" PRIMARY KEY ("id")
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
CREATE UNIQUE INDEX "synoptic_timeseries_group_synoptic_group_station_id_timeser_key" ON "synoptic_timeseries_group"("synoptic_group_station_id", "timeseries_group_id");

-- CreateIndex
CREATE INDEX "synoptic_warning_synoptic_group_id_id_idx" ON "synoptic_warning"("synoptic_group_id", "id");

-- AddForeignKey
ALTER TABLE "synoptic_group" ADD CONSTRAINT "synoptic_group_creator_id_fkey" FOREIGN KEY ("creator_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "synoptic_group_station" ADD CONSTRAINT "synoptic_group_station_synoptic_group_id_fkey" FOREIGN KEY ("synoptic_group_id") REFERENCES "synoptic_group"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "synoptic_group_station" ADD CONSTRAINT "synoptic_group_station_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "synoptic_timeseries_group" ADD CONSTRAINT "synoptic_timeseries_group_synoptic_group_station_id_fkey" FOREIGN KEY ("synoptic_group_station_id") REFERENCES "synoptic_group_station"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "synoptic_timeseries_group" ADD CONSTRAINT "synoptic_timeseries_group_timeseries_group_id_fkey" FOREIGN KEY ("timeseries_group_id") REFERENCES "timeseries_group"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "synoptic_alarm" ADD CONSTRAINT "synoptic_alarm_synoptic_timeseries_group_id_fkey" FOREIGN KEY ("synoptic_timeseries_group_id") REFERENCES "synoptic_timeseries_group"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "synoptic_warning" ADD CONSTRAINT "synoptic_warning_synoptic_group_id_fkey" FOREIGN KEY ("synoptic_group_id") REFERENCES "synoptic_group"("id") ON DELETE CASCADE ON UPDATE CASCADE;

