import type { LegacyModelName } from "@/lib/legacy/model-data";

/** The fields of each model of the model-named endpoints (legacy.md §2.1), in output order. */
const DESCR = ["id", "last_modified", "descr"] as const;
const GENTITY = ["id", "last_modified", "name", "code", "remarks", "geom"] as const;

export const LEGACY_FIELDS: Record<LegacyModelName, readonly string[]> = {
  Station: ["id", "last_update", "last_modified", "name", "code", "remarks", "original_srid", "altitude", "geom", "display_timezone",
    "start_date", "end_date", "owner", "overseer", "maintainers", "stype", "data_viewers"],
  Gentity: GENTITY,
  Gpoint: [...GENTITY, "altitude"],
  Garea: GENTITY,
  Timeseries: ["id", "last_modified", "name", "hidden", "precision", "remarks", "gentity", "variable", "unit_of_measurement", "time_step", "timeseries_group"],
  TimeseriesGroup: ["id", "last_modified", "name", "hidden", "precision", "remarks", "gentity", "variable", "unit_of_measurement"],
  Variable: DESCR,
  UnitOfMeasurement: ["id", "last_modified", "descr", "symbol", "variables"],
  Organization: ["id", "last_modified", "remarks", "name", "acronym"],
  Person: ["id", "last_modified", "remarks", "last_name", "first_name", "middle_names", "initials"],
  Lentity: ["id", "last_modified", "remarks"],
  StationType: DESCR,
  EventType: DESCR,
  FileType: ["id", "last_modified", "descr", "mime_type"],
  GentityFile: ["id", "last_modified", "date", "content", "descr", "remarks", "gentity"],
  GentityEvent: ["id", "last_modified", "date", "user", "report", "gentity", "type"],
};
