"use client";

import { useTranslations } from "next-intl";
import type { ZoneWords } from "@/lib/site/time";

/** The words of the time-zone choices' labels ("with summer time", "the station's") in the page's language. */
export function useZoneWords(): ZoneWords {
  const dates = useTranslations("dates");
  return { summerTime: (zone) => dates("withSummerTime", { zone }), station: (label) => dates("stationsZone", { label }) };
}
