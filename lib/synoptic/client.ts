// The client-safe face of lib/synoptic: what browser components may import (no server modules).

export { CHART_SPAN_SECONDS, chartDomain } from "./chart";
