-- CreateTable
CREATE TABLE "users" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "username" TEXT NOT NULL,
    "email" TEXT NOT NULL DEFAULT '',
    "first_name" TEXT NOT NULL DEFAULT '',
    "last_name" TEXT NOT NULL DEFAULT '',
    "password" TEXT NOT NULL,
    "is_superuser" BOOLEAN NOT NULL DEFAULT false,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "can_add_stations" BOOLEAN NOT NULL DEFAULT false,
    "date_joined" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_login" DATETIME
);

-- CreateTable
CREATE TABLE "auth_token" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "key_hash" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "created" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "auth_token_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "site_session" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "user_id" INTEGER NOT NULL,
    "created" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "site_session_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "login_failure" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "key" TEXT NOT NULL,
    "at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "lentity" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "kind" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "organization" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "last_modified" DATETIME,
    "remarks" TEXT NOT NULL DEFAULT '',
    "name" TEXT NOT NULL DEFAULT '',
    "acronym" TEXT NOT NULL DEFAULT '',
    "search_norm" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "organization_id_fkey" FOREIGN KEY ("id") REFERENCES "lentity" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "person" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "last_modified" DATETIME,
    "remarks" TEXT NOT NULL DEFAULT '',
    "last_name" TEXT NOT NULL DEFAULT '',
    "first_name" TEXT NOT NULL DEFAULT '',
    "middle_names" TEXT NOT NULL DEFAULT '',
    "initials" TEXT NOT NULL DEFAULT '',
    "search_norm" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "person_id_fkey" FOREIGN KEY ("id") REFERENCES "lentity" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "station_type" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "last_modified" DATETIME,
    "descr" TEXT NOT NULL DEFAULT '',
    "descr_norm" TEXT NOT NULL DEFAULT ''
);

-- CreateTable
CREATE TABLE "event_type" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "last_modified" DATETIME,
    "descr" TEXT NOT NULL DEFAULT ''
);

-- CreateTable
CREATE TABLE "variable" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "last_modified" DATETIME,
    "descr" TEXT NOT NULL DEFAULT '',
    "descr_norm" TEXT NOT NULL DEFAULT ''
);

-- CreateTable
CREATE TABLE "file_type" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "last_modified" DATETIME,
    "descr" TEXT NOT NULL DEFAULT '',
    "mime_type" TEXT NOT NULL DEFAULT ''
);

-- CreateTable
CREATE TABLE "unit_of_measurement" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "last_modified" DATETIME,
    "descr" TEXT NOT NULL DEFAULT '',
    "symbol" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "unit_variable" (
    "unit_id" INTEGER NOT NULL,
    "variable_id" INTEGER NOT NULL,

    PRIMARY KEY ("unit_id", "variable_id"),
    CONSTRAINT "unit_variable_unit_id_fkey" FOREIGN KEY ("unit_id") REFERENCES "unit_of_measurement" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "unit_variable_variable_id_fkey" FOREIGN KEY ("variable_id") REFERENCES "variable" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "gentity" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "kind" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "garea" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "last_modified" DATETIME,
    "name" TEXT NOT NULL DEFAULT '',
    "code" TEXT NOT NULL DEFAULT '',
    "remarks" TEXT NOT NULL DEFAULT '',
    "geom" TEXT NOT NULL,
    "min_lon" REAL NOT NULL,
    "min_lat" REAL NOT NULL,
    "max_lon" REAL NOT NULL,
    "max_lat" REAL NOT NULL,
    "search_norm" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "garea_id_fkey" FOREIGN KEY ("id") REFERENCES "gentity" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "station" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "last_modified" DATETIME,
    "name" TEXT NOT NULL DEFAULT '',
    "code" TEXT NOT NULL DEFAULT '',
    "remarks" TEXT NOT NULL DEFAULT '',
    "original_srid" INTEGER,
    "altitude" REAL,
    "lon" REAL NOT NULL,
    "lat" REAL NOT NULL,
    "display_timezone" TEXT NOT NULL DEFAULT 'Etc/GMT',
    "start_date" TEXT,
    "end_date" TEXT,
    "owner_id" INTEGER NOT NULL,
    "overseer" TEXT NOT NULL DEFAULT '',
    "creator_id" INTEGER,
    "search_norm" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "station_id_fkey" FOREIGN KEY ("id") REFERENCES "gentity" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "station_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "lentity" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "station_creator_id_fkey" FOREIGN KEY ("creator_id") REFERENCES "users" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "station_maintainer" (
    "station_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,

    PRIMARY KEY ("station_id", "user_id"),
    CONSTRAINT "station_maintainer_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "station_maintainer_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "station_data_viewer" (
    "station_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,

    PRIMARY KEY ("station_id", "user_id"),
    CONSTRAINT "station_data_viewer_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "station_data_viewer_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "station_stype" (
    "station_id" INTEGER NOT NULL,
    "station_type_id" INTEGER NOT NULL,

    PRIMARY KEY ("station_id", "station_type_id"),
    CONSTRAINT "station_stype_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "station_stype_station_type_id_fkey" FOREIGN KEY ("station_type_id") REFERENCES "station_type" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "timeseries_group" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "last_modified" DATETIME,
    "station_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "hidden" BOOLEAN NOT NULL DEFAULT false,
    "precision" INTEGER NOT NULL,
    "remarks" TEXT NOT NULL DEFAULT '',
    "remarks_norm" TEXT NOT NULL DEFAULT '',
    "variable_id" INTEGER NOT NULL,
    "unit_id" INTEGER NOT NULL,
    CONSTRAINT "timeseries_group_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "timeseries_group_variable_id_fkey" FOREIGN KEY ("variable_id") REFERENCES "variable" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "timeseries_group_unit_id_fkey" FOREIGN KEY ("unit_id") REFERENCES "unit_of_measurement" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "timeseries" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "last_modified" DATETIME,
    "timeseries_group_id" INTEGER NOT NULL,
    "type" INTEGER NOT NULL,
    "time_step" TEXT NOT NULL DEFAULT '',
    "name" TEXT NOT NULL DEFAULT '',
    "publicly_available" BOOLEAN NOT NULL DEFAULT true,
    "version" INTEGER NOT NULL DEFAULT 1,
    "record_count" INTEGER NOT NULL DEFAULT 0,
    "first_timestamp" BIGINT,
    "last_timestamp" BIGINT,
    "last_value" REAL,
    "last_flags" TEXT,
    CONSTRAINT "timeseries_timeseries_group_id_fkey" FOREIGN KEY ("timeseries_group_id") REFERENCES "timeseries_group" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "timeseries_record" (
    "timeseries_id" INTEGER NOT NULL,
    "timestamp" BIGINT NOT NULL,
    "value" REAL,
    "flags" TEXT NOT NULL DEFAULT '',

    PRIMARY KEY ("timeseries_id", "timestamp")
) WITHOUT ROWID;

-- CreateTable
CREATE TABLE "timeseries_block" (
    "timeseries_id" INTEGER NOT NULL,
    "block_start" BIGINT NOT NULL,
    "count" INTEGER NOT NULL,
    "value_count" INTEGER NOT NULL,
    "min" REAL,
    "max" REAL,
    "sum" REAL,

    PRIMARY KEY ("timeseries_id", "block_start")
) WITHOUT ROWID;

-- CreateTable
CREATE TABLE "gentity_file" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "last_modified" DATETIME,
    "station_id" INTEGER NOT NULL,
    "date" TEXT,
    "descr" TEXT NOT NULL DEFAULT '',
    "remarks" TEXT NOT NULL DEFAULT '',
    "file_name" TEXT NOT NULL DEFAULT '',
    "stored_name" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "gentity_file_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "gentity_image" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "last_modified" DATETIME,
    "station_id" INTEGER NOT NULL,
    "date" TEXT,
    "descr" TEXT NOT NULL DEFAULT '',
    "remarks" TEXT NOT NULL DEFAULT '',
    "featured" BOOLEAN NOT NULL DEFAULT false,
    "file_name" TEXT NOT NULL DEFAULT '',
    "stored_name" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "gentity_image_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "gentity_event" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "last_modified" DATETIME,
    "station_id" INTEGER NOT NULL,
    "date" TEXT NOT NULL,
    "user" TEXT NOT NULL DEFAULT '',
    "report" TEXT NOT NULL DEFAULT '',
    "type_id" INTEGER NOT NULL,
    CONSTRAINT "gentity_event_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "gentity_event_type_id_fkey" FOREIGN KEY ("type_id") REFERENCES "event_type" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
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


-- Hand-written: what Prisma cannot express.

-- At most one Initial (1), Checked (2) and Regularized (3) time series per group.
CREATE UNIQUE INDEX "timeseries_one_per_type" ON "timeseries"("timeseries_group_id", "type") WHERE "type" IN (1, 2, 3);

-- Records and blocks have no foreign key (it would be checked for every inserted record);
-- they go with their time series, including through cascades from groups and stations.
CREATE TRIGGER "timeseries_delete_records" AFTER DELETE ON "timeseries" BEGIN
    DELETE FROM "timeseries_record" WHERE "timeseries_id" = OLD."id";
    DELETE FROM "timeseries_block" WHERE "timeseries_id" = OLD."id";
END;
