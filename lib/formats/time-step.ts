/**
 * Time step strings (formats.md §4).
 */

/** formats.md §4.1: "" or [count] unit, count without leading zero, at most 7 characters. */
export function isValidTimeStep(s: string): boolean {
  if (s === "") return true;
  return s.length <= 7 && parseTimeStep(s) !== null;
}

function parseTimeStep(s: string): [number, number] | null {
  let i = 0;
  const n = s.length;
  let count = 1;
  const c0 = s.charCodeAt(0);
  if (c0 >= 49 && c0 <= 57) {
    count = 0;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c < 48 || c > 57) break;
      count = count * 10 + (c - 48);
      i++;
    }
  }
  switch (s.slice(i)) {
    case "min":
      return [count, 0];
    case "H":
    case "h":
      return [60 * count, 0];
    case "D":
      return [1440 * count, 0];
    case "M":
      return [0, count];
    case "Y":
      return [0, 12 * count];
    default:
      return null;
  }
}

/**
 * formats.md §4.2: `[minutes, months]` of a time step; null for "" (irregular) and for an
 * invalid string.
 */
export function timeStepToMinutesMonths(s: string): [number, number] | null {
  if (s === "" || s.length > 7) return null;
  return parseTimeStep(s);
}

/** `"X" is not a valid time step.` */
export function invalidTimeStepMessage(s: string): string {
  return `"${s}" is not a valid time step.`;
}
