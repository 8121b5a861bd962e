/**
 * When a telemetry is due (telemetry.md §3): in the minutes whose number since midnight UTC,
 * modulo the fetch interval, equals the offset (the reference's `is_due`). An interval that
 * does not divide a day starts again at midnight: every 7 minutes with offset 3 is due at
 * 00:03, 00:10, … 23:55, then 00:03.
 *
 * Each telemetry keeps the start of its next due minute (`next_fetch`); the scheduler's tick
 * queues a fetch of those whose next_fetch has passed and moves it to the first due minute after
 * the current one, so that a fetch missed while no runner ran happens once, at the next tick.
 */
import { Prisma } from "@/lib/db";
import type { Dialect } from "@/lib/db/url";

export const MINUTE_MS = 60_000;
export const DAY_MINUTES = 1440;
export const MIN_INTERVAL = 10;
export const MAX_INTERVAL = DAY_MINUTES;

/** Whether a minute of the day (0–1439) is due. */
export function isDueMinute(minuteOfDay: number, interval: number, offset: number): boolean {
  return minuteOfDay % interval === offset;
}

/** The first due minute of the day at or after `minuteOfDay`, or null when none is left that day. */
function dueMinuteFrom(minuteOfDay: number, interval: number, offset: number): number | null {
  const k = minuteOfDay <= offset ? 0 : Math.ceil((minuteOfDay - offset) / interval);
  const due = offset + k * interval;
  return due < DAY_MINUTES ? due : null;
}

/** The start (ms since the epoch) of the first due minute that starts at or after `ms`. */
export function nextDue(ms: number, interval: number, offset: number): number {
  const minute = Math.ceil(ms / MINUTE_MS);
  const day = Math.floor(minute / DAY_MINUTES);
  const due = dueMinuteFrom(minute - day * DAY_MINUTES, interval, offset);
  return (due === null ? (day + 1) * DAY_MINUTES + offset : day * DAY_MINUTES + due) * MINUTE_MS;
}

/** The start of the first due minute after the minute that contains `ms` (the tick's new next_fetch). */
export function dueAfterMinuteOf(ms: number, interval: number, offset: number): number {
  return nextDue((Math.floor(ms / MINUTE_MS) + 1) * MINUTE_MS, interval, offset);
}

/**
 * dueAfterMinuteOf as SQL over the table's fetch_interval_minutes and fetch_offset_minutes
 * columns, for the tick's one UPDATE: the next due minute of the day from the minute after
 * now's, or the offset of the next day.
 */
export function dueAfterMinuteOfSql(ms: number, dialect: Dialect): Prisma.Sql {
  const from = Math.floor(ms / MINUTE_MS) + 1;
  const day = Math.floor(from / DAY_MINUTES);
  const m = from - day * DAY_MINUTES;
  const dayStart = day * DAY_MINUTES * MINUTE_MS;
  const int = (n: number) => Prisma.sql`CAST(${n} AS INTEGER)`;
  const iv = Prisma.raw("fetch_interval_minutes");
  const off = Prisma.raw("fetch_offset_minutes");
  const due = Prisma.sql`(CASE WHEN ${int(m)} <= ${off} THEN ${off} ELSE ${off} + ${iv} * ((${int(m)} - ${off} + ${iv} - 1) / ${iv}) END)`;
  const minutes = Prisma.sql`(CASE WHEN ${due} >= ${DAY_MINUTES} THEN ${DAY_MINUTES} + ${off} ELSE ${due} END)`;
  return dialect === "postgres"
    ? Prisma.sql`(CAST(${new Date(dayStart)} AS TIMESTAMP(3)) + make_interval(mins => ${minutes}))`
    : Prisma.sql`(CAST(${dayStart} AS INTEGER) + ${minutes} * ${MINUTE_MS})`;
}

/** "every 10 minutes at :02, :12, …", "every day at 02:05 UTC": a schedule in words. */
export function scheduleText(interval: number, offset: number): string {
  const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
  if (interval === DAY_MINUTES) return `every day at ${hhmm(offset)} UTC`;
  const every = interval % 60 === 0 ? `every ${interval / 60 === 1 ? "hour" : `${interval / 60} hours`}` : `every ${interval} minutes`;
  if (interval < 60) return `${every}, at minute ${offset} of each ${interval}-minute slot from midnight UTC`;
  return `${every} from ${hhmm(offset)} UTC`;
}
