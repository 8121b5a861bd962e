-- CreateTable
CREATE TABLE "metadata_version" (
    "id" INTEGER NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "metadata_version_pkey" PRIMARY KEY ("id")
);


-- The metadata version (prisma/schema.prisma, model MetadataVersion): one row, bumped by the
-- triggers below in the transaction of every write of what the station list and search show or
-- filter on. Series count only by their existence and group (`ts_only`); the records store's
-- updates of their summary columns (every upload) leave the version alone.
INSERT INTO "metadata_version" ("id", "version") VALUES (1, 0);

-- BEFORE each statement: a transaction takes the version's row lock before the row locks of its
-- first metadata statement, so two metadata transactions cannot deadlock over it.
CREATE FUNCTION "metadata_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE "metadata_version" SET "version" = "version" + 1;
    RETURN NULL;
END
$$;

CREATE TRIGGER "station_metadata_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "station"
    FOR EACH STATEMENT EXECUTE FUNCTION "metadata_changed"();

CREATE TRIGGER "station_maintainer_metadata_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "station_maintainer"
    FOR EACH STATEMENT EXECUTE FUNCTION "metadata_changed"();

CREATE TRIGGER "station_data_viewer_metadata_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "station_data_viewer"
    FOR EACH STATEMENT EXECUTE FUNCTION "metadata_changed"();

CREATE TRIGGER "station_stype_metadata_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "station_stype"
    FOR EACH STATEMENT EXECUTE FUNCTION "metadata_changed"();

CREATE TRIGGER "organization_metadata_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "organization"
    FOR EACH STATEMENT EXECUTE FUNCTION "metadata_changed"();

CREATE TRIGGER "person_metadata_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "person"
    FOR EACH STATEMENT EXECUTE FUNCTION "metadata_changed"();

CREATE TRIGGER "station_type_metadata_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "station_type"
    FOR EACH STATEMENT EXECUTE FUNCTION "metadata_changed"();

CREATE TRIGGER "variable_metadata_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "variable"
    FOR EACH STATEMENT EXECUTE FUNCTION "metadata_changed"();

CREATE TRIGGER "timeseries_group_metadata_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "timeseries_group"
    FOR EACH STATEMENT EXECUTE FUNCTION "metadata_changed"();

CREATE TRIGGER "garea_metadata_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "garea"
    FOR EACH STATEMENT EXECUTE FUNCTION "metadata_changed"();

CREATE TRIGGER "timeseries_metadata_changed" BEFORE INSERT OR DELETE OR TRUNCATE OR UPDATE OF "timeseries_group_id" ON "timeseries"
    FOR EACH STATEMENT EXECUTE FUNCTION "metadata_changed"();
