/** The paths of the management pages (management.md §2); client-safe. */
export const managePaths = {
  home: "/manage/",
  newStation: "/manage/stations/new/",
  station: (sid: number) => `/manage/stations/${sid}/`,
  telemetry: (sid: number) => `/manage/stations/${sid}/telemetry/`,
  group: (sid: number, gid: number) => `/manage/stations/${sid}/timeseriesgroups/${gid}/`,
  series: (sid: number, gid: number, tid: number) => `/manage/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/`,
  process: (sid: number, gid: number, pid: number) => `/manage/stations/${sid}/timeseriesgroups/${gid}/processes/${pid}/`,
  upload: (sid: number, gid: number, tid: number) => `/manage/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/upload/`,
  edit: (sid: number, gid: number, tid: number) => `/manage/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/edit/`,
  child: (kind: "files" | "images" | "events", sid: number, id: number) => `/manage/stations/${sid}/${kind}/${id}/`,
  lookups: "/manage/lookups/",
  lookup: (name: string) => `/manage/lookups/${name}/`,
  lookupObject: (name: string, id: number) => `/manage/lookups/${name}/${id}/`,
  users: "/manage/users/",
  synoptic: "/manage/synoptic/",
  replication: "/manage/replication/",
  source: (id: number) => `/manage/replication/${id}/`,
  detach: (sid: number) => `/manage/stations/${sid}/detach/`,
  user: (id: number) => `/manage/users/${id}/`,
};

/** The kind of a station's child in a management path, or null. */
export function childKind(text: string): "files" | "images" | "events" | null {
  return text === "files" || text === "images" || text === "events" ? text : null;
}
