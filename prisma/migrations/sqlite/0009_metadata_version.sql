-- CreateTable
CREATE TABLE "metadata_version" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "version" INTEGER NOT NULL DEFAULT 0
);


-- The metadata version (prisma/schema.prisma, model MetadataVersion): one row, bumped by the
-- triggers below in the transaction of every write of what the station list and search show or
-- filter on. Series count only by their existence and group (`ts_only`); the records store's
-- updates of their summary columns (every upload) leave the version alone.
INSERT INTO "metadata_version" ("id", "version") VALUES (1, 0);

CREATE TRIGGER "station_metadata_insert" AFTER INSERT ON "station" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "station_metadata_update" AFTER UPDATE ON "station" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "station_metadata_delete" AFTER DELETE ON "station" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "station_maintainer_metadata_insert" AFTER INSERT ON "station_maintainer" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "station_maintainer_metadata_update" AFTER UPDATE ON "station_maintainer" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "station_maintainer_metadata_delete" AFTER DELETE ON "station_maintainer" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "station_data_viewer_metadata_insert" AFTER INSERT ON "station_data_viewer" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "station_data_viewer_metadata_update" AFTER UPDATE ON "station_data_viewer" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "station_data_viewer_metadata_delete" AFTER DELETE ON "station_data_viewer" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "station_stype_metadata_insert" AFTER INSERT ON "station_stype" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "station_stype_metadata_update" AFTER UPDATE ON "station_stype" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "station_stype_metadata_delete" AFTER DELETE ON "station_stype" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "organization_metadata_insert" AFTER INSERT ON "organization" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "organization_metadata_update" AFTER UPDATE ON "organization" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "organization_metadata_delete" AFTER DELETE ON "organization" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "person_metadata_insert" AFTER INSERT ON "person" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "person_metadata_update" AFTER UPDATE ON "person" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "person_metadata_delete" AFTER DELETE ON "person" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "station_type_metadata_insert" AFTER INSERT ON "station_type" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "station_type_metadata_update" AFTER UPDATE ON "station_type" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "station_type_metadata_delete" AFTER DELETE ON "station_type" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "variable_metadata_insert" AFTER INSERT ON "variable" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "variable_metadata_update" AFTER UPDATE ON "variable" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "variable_metadata_delete" AFTER DELETE ON "variable" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "timeseries_group_metadata_insert" AFTER INSERT ON "timeseries_group" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "timeseries_group_metadata_update" AFTER UPDATE ON "timeseries_group" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "timeseries_group_metadata_delete" AFTER DELETE ON "timeseries_group" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "garea_metadata_insert" AFTER INSERT ON "garea" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "garea_metadata_update" AFTER UPDATE ON "garea" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "garea_metadata_delete" AFTER DELETE ON "garea" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "timeseries_metadata_insert" AFTER INSERT ON "timeseries" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "timeseries_metadata_delete" AFTER DELETE ON "timeseries" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;

CREATE TRIGGER "timeseries_metadata_update" AFTER UPDATE OF "timeseries_group_id" ON "timeseries" BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
END;
