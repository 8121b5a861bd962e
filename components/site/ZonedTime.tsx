import { shownInstant } from "@/lib/domain/serialize";
import { formatDateTime, offsetLabel } from "@/lib/site/time";

/**
 * An instant (epoch seconds) in a station's display zone, as the station pages show it:
 * "2025-03-01 14:00 (UTC+02:00)", with the instant in UTC for machines.
 */
export function ZonedTime({ at, offset }: { at: number; offset: number }) {
  // An instant outside years 1–9999 (a bad record) is not shown.
  if (shownInstant(at) === null) return null;
  return (
    <time dateTime={new Date(at * 1000).toISOString().replace(/\.\d{3}Z$/, "Z")}>
      {formatDateTime(at, offset)} <span className="muted small">({offsetLabel(offset)})</span>
    </time>
  );
}
