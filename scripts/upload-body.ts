// The upload body of npm run bench, npm run profile:reads and the page lab: what the Python
// client sends (seconds, an offset, empty flags, LF; timezone=UTC), `count` ten-minute records from `start`.
export function recordsBody(count: number, start: number): Buffer {
  const lines: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const d = new Date((start + i * 600) * 1000).toISOString();
    const v = (15 + 10 * Math.sin(i / 4000) + ((i * 7919) % 100) / 100).toFixed(2);
    lines[i] = `${d.slice(0, 10)} ${d.slice(11, 19)}+00:00,${v},`;
  }
  return Buffer.from(`timezone=UTC&timeseries_records=${encodeURIComponent(lines.join("\n"))}`);
}
