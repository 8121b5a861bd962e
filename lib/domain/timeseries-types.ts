/** Time series types, stored as integers in their list order (api.md §6). */
export const TIMESERIES_TYPES = ["Initial", "Checked", "Regularized", "Aggregated"] as const;
export type TimeseriesTypeName = (typeof TIMESERIES_TYPES)[number];

export function typeName(code: number): TimeseriesTypeName {
  const name = TIMESERIES_TYPES[code - 1];
  if (!name) throw new Error(`Unknown time series type code ${code}`);
  return name;
}

export function typeCode(name: TimeseriesTypeName): number {
  return TIMESERIES_TYPES.indexOf(name) + 1;
}
