-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "users" (
    "id" SERIAL NOT NULL,
    "username" TEXT COLLATE "C" NOT NULL,
    "email" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "first_name" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "last_name" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "password" TEXT COLLATE "C" NOT NULL,
    "is_superuser" BOOLEAN NOT NULL DEFAULT false,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "can_add_stations" BOOLEAN NOT NULL DEFAULT false,
    "date_joined" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_login" TIMESTAMP(3),

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "auth_token" (
    "id" SERIAL NOT NULL,
    "key_hash" TEXT COLLATE "C" NOT NULL,
    "user_id" INTEGER NOT NULL,
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "auth_token_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "site_session" (
    "id" TEXT COLLATE "C" NOT NULL,
    "user_id" INTEGER NOT NULL,
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "site_session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "login_failure" (
    "id" SERIAL NOT NULL,
    "key" TEXT COLLATE "C" NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "login_failure_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "lentity" (
    "id" SERIAL NOT NULL,
    "kind" TEXT COLLATE "C" NOT NULL,

    CONSTRAINT "lentity_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "organization" (
    "id" INTEGER NOT NULL,
    "last_modified" TIMESTAMP(3),
    "remarks" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "name" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "acronym" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "search_norm" TEXT COLLATE "C" NOT NULL DEFAULT '',

    CONSTRAINT "organization_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "person" (
    "id" INTEGER NOT NULL,
    "last_modified" TIMESTAMP(3),
    "remarks" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "last_name" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "first_name" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "middle_names" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "initials" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "search_norm" TEXT COLLATE "C" NOT NULL DEFAULT '',

    CONSTRAINT "person_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "station_type" (
    "id" SERIAL NOT NULL,
    "last_modified" TIMESTAMP(3),
    "descr" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "descr_norm" TEXT COLLATE "C" NOT NULL DEFAULT '',

    CONSTRAINT "station_type_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_type" (
    "id" SERIAL NOT NULL,
    "last_modified" TIMESTAMP(3),
    "descr" TEXT COLLATE "C" NOT NULL DEFAULT '',

    CONSTRAINT "event_type_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "variable" (
    "id" SERIAL NOT NULL,
    "last_modified" TIMESTAMP(3),
    "descr" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "descr_norm" TEXT COLLATE "C" NOT NULL DEFAULT '',

    CONSTRAINT "variable_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "file_type" (
    "id" SERIAL NOT NULL,
    "last_modified" TIMESTAMP(3),
    "descr" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "mime_type" TEXT COLLATE "C" NOT NULL DEFAULT '',

    CONSTRAINT "file_type_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "unit_of_measurement" (
    "id" SERIAL NOT NULL,
    "last_modified" TIMESTAMP(3),
    "descr" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "symbol" TEXT COLLATE "C" NOT NULL,

    CONSTRAINT "unit_of_measurement_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "unit_variable" (
    "unit_id" INTEGER NOT NULL,
    "variable_id" INTEGER NOT NULL,

    CONSTRAINT "unit_variable_pkey" PRIMARY KEY ("unit_id","variable_id")
);

-- CreateTable
CREATE TABLE "gentity" (
    "id" SERIAL NOT NULL,
    "kind" TEXT COLLATE "C" NOT NULL,

    CONSTRAINT "gentity_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "garea" (
    "id" INTEGER NOT NULL,
    "last_modified" TIMESTAMP(3),
    "name" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "code" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "remarks" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "geom" TEXT COLLATE "C" NOT NULL,
    "min_lon" DOUBLE PRECISION NOT NULL,
    "min_lat" DOUBLE PRECISION NOT NULL,
    "max_lon" DOUBLE PRECISION NOT NULL,
    "max_lat" DOUBLE PRECISION NOT NULL,
    "search_norm" TEXT COLLATE "C" NOT NULL DEFAULT '',

    CONSTRAINT "garea_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "station" (
    "id" INTEGER NOT NULL,
    "last_modified" TIMESTAMP(3),
    "name" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "code" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "remarks" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "original_srid" INTEGER,
    "altitude" DOUBLE PRECISION,
    "lon" DOUBLE PRECISION NOT NULL,
    "lat" DOUBLE PRECISION NOT NULL,
    "display_timezone" TEXT COLLATE "C" NOT NULL DEFAULT 'Etc/GMT',
    "start_date" TEXT COLLATE "C",
    "end_date" TEXT COLLATE "C",
    "owner_id" INTEGER NOT NULL,
    "overseer" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "creator_id" INTEGER,
    "search_norm" TEXT COLLATE "C" NOT NULL DEFAULT '',

    CONSTRAINT "station_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "station_maintainer" (
    "station_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,

    CONSTRAINT "station_maintainer_pkey" PRIMARY KEY ("station_id","user_id")
);

-- CreateTable
CREATE TABLE "station_data_viewer" (
    "station_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,

    CONSTRAINT "station_data_viewer_pkey" PRIMARY KEY ("station_id","user_id")
);

-- CreateTable
CREATE TABLE "station_stype" (
    "station_id" INTEGER NOT NULL,
    "station_type_id" INTEGER NOT NULL,

    CONSTRAINT "station_stype_pkey" PRIMARY KEY ("station_id","station_type_id")
);

-- CreateTable
CREATE TABLE "timeseries_group" (
    "id" SERIAL NOT NULL,
    "last_modified" TIMESTAMP(3),
    "station_id" INTEGER NOT NULL,
    "name" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "hidden" BOOLEAN NOT NULL DEFAULT false,
    "precision" INTEGER NOT NULL,
    "remarks" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "remarks_norm" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "variable_id" INTEGER NOT NULL,
    "unit_id" INTEGER NOT NULL,

    CONSTRAINT "timeseries_group_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "timeseries" (
    "id" SERIAL NOT NULL,
    "last_modified" TIMESTAMP(3),
    "timeseries_group_id" INTEGER NOT NULL,
    "type" INTEGER NOT NULL,
    "time_step" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "name" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "publicly_available" BOOLEAN NOT NULL DEFAULT true,
    "version" INTEGER NOT NULL DEFAULT 1,
    "record_count" INTEGER NOT NULL DEFAULT 0,
    "first_timestamp" BIGINT,
    "last_timestamp" BIGINT,
    "last_value" DOUBLE PRECISION,
    "last_flags" TEXT COLLATE "C",

    CONSTRAINT "timeseries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "timeseries_record" (
    "timeseries_id" INTEGER NOT NULL,
    "timestamp" BIGINT NOT NULL,
    "value" DOUBLE PRECISION,
    "flags" TEXT COLLATE "C" NOT NULL DEFAULT '',

    CONSTRAINT "timeseries_record_pkey" PRIMARY KEY ("timeseries_id","timestamp")
);

-- CreateTable
CREATE TABLE "timeseries_block" (
    "timeseries_id" INTEGER NOT NULL,
    "block_start" BIGINT NOT NULL,
    "count" INTEGER NOT NULL,
    "value_count" INTEGER NOT NULL,
    "min" DOUBLE PRECISION,
    "max" DOUBLE PRECISION,
    "sum" DOUBLE PRECISION,

    CONSTRAINT "timeseries_block_pkey" PRIMARY KEY ("timeseries_id","block_start")
);

-- CreateTable
CREATE TABLE "gentity_file" (
    "id" SERIAL NOT NULL,
    "last_modified" TIMESTAMP(3),
    "station_id" INTEGER NOT NULL,
    "date" TEXT COLLATE "C",
    "descr" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "remarks" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "file_name" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "stored_name" TEXT COLLATE "C" NOT NULL DEFAULT '',

    CONSTRAINT "gentity_file_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "gentity_image" (
    "id" SERIAL NOT NULL,
    "last_modified" TIMESTAMP(3),
    "station_id" INTEGER NOT NULL,
    "date" TEXT COLLATE "C",
    "descr" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "remarks" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "featured" BOOLEAN NOT NULL DEFAULT false,
    "file_name" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "stored_name" TEXT COLLATE "C" NOT NULL DEFAULT '',

    CONSTRAINT "gentity_image_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "gentity_event" (
    "id" SERIAL NOT NULL,
    "last_modified" TIMESTAMP(3),
    "station_id" INTEGER NOT NULL,
    "date" TEXT COLLATE "C" NOT NULL,
    "user" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "report" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "type_id" INTEGER NOT NULL,

    CONSTRAINT "gentity_event_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_username_key" ON "users"("username");

-- CreateIndex
CREATE INDEX "users_email_idx" ON "users"("email");

-- CreateIndex
CREATE UNIQUE INDEX "auth_token_key_hash_key" ON "auth_token"("key_hash");

-- CreateIndex
CREATE INDEX "auth_token_user_id_idx" ON "auth_token"("user_id");

-- CreateIndex
CREATE INDEX "site_session_user_id_idx" ON "site_session"("user_id");

-- CreateIndex
CREATE INDEX "login_failure_key_at_idx" ON "login_failure"("key", "at");

-- CreateIndex
CREATE INDEX "unit_variable_variable_id_idx" ON "unit_variable"("variable_id");

-- CreateIndex
CREATE INDEX "station_owner_id_idx" ON "station"("owner_id");

-- CreateIndex
CREATE INDEX "station_lon_lat_idx" ON "station"("lon", "lat");

-- CreateIndex
CREATE INDEX "station_maintainer_user_id_idx" ON "station_maintainer"("user_id");

-- CreateIndex
CREATE INDEX "station_data_viewer_user_id_idx" ON "station_data_viewer"("user_id");

-- CreateIndex
CREATE INDEX "station_stype_station_type_id_idx" ON "station_stype"("station_type_id");

-- CreateIndex
CREATE INDEX "timeseries_group_station_id_idx" ON "timeseries_group"("station_id");

-- CreateIndex
CREATE INDEX "timeseries_group_variable_id_idx" ON "timeseries_group"("variable_id");

-- CreateIndex
CREATE INDEX "timeseries_group_unit_id_idx" ON "timeseries_group"("unit_id");

-- CreateIndex
CREATE UNIQUE INDEX "timeseries_timeseries_group_id_type_time_step_name_key" ON "timeseries"("timeseries_group_id", "type", "time_step", "name");

-- CreateIndex
CREATE INDEX "gentity_file_station_id_idx" ON "gentity_file"("station_id");

-- CreateIndex
CREATE INDEX "gentity_image_station_id_idx" ON "gentity_image"("station_id");

-- CreateIndex
CREATE INDEX "gentity_event_station_id_idx" ON "gentity_event"("station_id");

-- CreateIndex
CREATE INDEX "gentity_event_type_id_idx" ON "gentity_event"("type_id");

-- AddForeignKey
ALTER TABLE "auth_token" ADD CONSTRAINT "auth_token_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "site_session" ADD CONSTRAINT "site_session_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "organization" ADD CONSTRAINT "organization_id_fkey" FOREIGN KEY ("id") REFERENCES "lentity"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "person" ADD CONSTRAINT "person_id_fkey" FOREIGN KEY ("id") REFERENCES "lentity"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "unit_variable" ADD CONSTRAINT "unit_variable_unit_id_fkey" FOREIGN KEY ("unit_id") REFERENCES "unit_of_measurement"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "unit_variable" ADD CONSTRAINT "unit_variable_variable_id_fkey" FOREIGN KEY ("variable_id") REFERENCES "variable"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "garea" ADD CONSTRAINT "garea_id_fkey" FOREIGN KEY ("id") REFERENCES "gentity"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "station" ADD CONSTRAINT "station_id_fkey" FOREIGN KEY ("id") REFERENCES "gentity"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "station" ADD CONSTRAINT "station_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "lentity"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "station" ADD CONSTRAINT "station_creator_id_fkey" FOREIGN KEY ("creator_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "station_maintainer" ADD CONSTRAINT "station_maintainer_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "station_maintainer" ADD CONSTRAINT "station_maintainer_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "station_data_viewer" ADD CONSTRAINT "station_data_viewer_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "station_data_viewer" ADD CONSTRAINT "station_data_viewer_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "station_stype" ADD CONSTRAINT "station_stype_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "station_stype" ADD CONSTRAINT "station_stype_station_type_id_fkey" FOREIGN KEY ("station_type_id") REFERENCES "station_type"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "timeseries_group" ADD CONSTRAINT "timeseries_group_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "timeseries_group" ADD CONSTRAINT "timeseries_group_variable_id_fkey" FOREIGN KEY ("variable_id") REFERENCES "variable"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "timeseries_group" ADD CONSTRAINT "timeseries_group_unit_id_fkey" FOREIGN KEY ("unit_id") REFERENCES "unit_of_measurement"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "timeseries" ADD CONSTRAINT "timeseries_timeseries_group_id_fkey" FOREIGN KEY ("timeseries_group_id") REFERENCES "timeseries_group"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "gentity_file" ADD CONSTRAINT "gentity_file_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "gentity_image" ADD CONSTRAINT "gentity_image_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "gentity_event" ADD CONSTRAINT "gentity_event_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "gentity_event" ADD CONSTRAINT "gentity_event_type_id_fkey" FOREIGN KEY ("type_id") REFERENCES "event_type"("id") ON DELETE RESTRICT ON UPDATE CASCADE;


-- Hand-written: what Prisma cannot express.

-- At most one Initial (1), Checked (2) and Regularized (3) time series per group.
CREATE UNIQUE INDEX "timeseries_one_per_type" ON "timeseries"("timeseries_group_id", "type") WHERE "type" IN (1, 2, 3);

-- Records and blocks have no foreign key (it would be checked for every inserted record);
-- they go with their time series, including through cascades from groups and stations.
CREATE FUNCTION "timeseries_delete_records"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM "timeseries_record" WHERE "timeseries_id" = OLD."id";
    DELETE FROM "timeseries_block" WHERE "timeseries_id" = OLD."id";
    RETURN OLD;
END
$$;
CREATE TRIGGER "timeseries_delete_records" AFTER DELETE ON "timeseries"
    FOR EACH ROW EXECUTE FUNCTION "timeseries_delete_records"();
