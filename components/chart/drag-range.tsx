"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";

/** A span of the time axis, in the chart's x values (epoch seconds). */
export interface Span {
  from: number;
  to: number;
}

interface ChartMouseState {
  activeLabel?: string | number;
}

/**
 * Dragging across a chart's time axis (the group page zooms to the span, the workbench selects
 * it): the span being dragged, to draw, and the chart's mouse handlers. A click without a drag
 * is no span.
 */
export function useDragRange(onDone: (from: number, to: number) => void) {
  const [drag, setDrag] = useState<Span | null>(null);
  const at = (s: ChartMouseState) => (s.activeLabel === undefined ? null : Number(s.activeLabel));
  const handlers = {
    onMouseDown: (s: ChartMouseState) => {
      const t = at(s);
      if (t !== null) setDrag({ from: t, to: t });
    },
    onMouseMove: (s: ChartMouseState) => {
      const t = at(s);
      if (drag && t !== null) setDrag({ from: drag.from, to: t });
    },
    onMouseUp: () => {
      if (drag && drag.to !== drag.from) onDone(drag.from, drag.to);
      setDrag(null);
    },
    onMouseLeave: () => setDrag(null),
  };
  return { drag, handlers };
}

/** The From and To fields of a chart's range form, in the page's time zone. */
export function RangeFields({ idPrefix, zone, from, to, onFrom, onTo }: {
  idPrefix: string; zone: string; from: string; to: string; onFrom: (value: string) => void; onTo: (value: string) => void;
}) {
  const t = useTranslations("chart");
  return (
    <>
      <div className="field">
        <label htmlFor={`${idPrefix}-from`}>{t("from", { zone })}</label>
        <input id={`${idPrefix}-from`} type="datetime-local" value={from} onChange={(e) => onFrom(e.target.value)} required />
      </div>
      <div className="field">
        <label htmlFor={`${idPrefix}-to`}>{t("to", { zone })}</label>
        <input id={`${idPrefix}-to`} type="datetime-local" value={to} onChange={(e) => onTo(e.target.value)} required />
      </div>
    </>
  );
}
