import Link from "next/link";

const TYPES: { term: string; example: string; text: string }[] = [
  { term: "owner:", example: "owner:ntua", text: "owner (organization name or acronym, person’s name)" },
  { term: "type:", example: "type:meteorological", text: "station type" },
  { term: "variable:", example: "variable:temperature", text: "has a time series group of this variable" },
  { term: "bbox:", example: "bbox:20.5,38.5,22,40", text: "inside min_lon,min_lat,max_lon,max_lat" },
  { term: "in:", example: "in:epirus", text: "inside a geographical area (name or code)" },
  { term: "ts_only:", example: "ts_only:", text: "has at least one time series" },
  { term: "ts_has_years:", example: "ts_has_years:2025", text: "has records in each of these years (comma-separated)" },
];

/** The short help of the search syntax (api.md §4.5). */
export default function SearchHelp() {
  return (
    <details className="search-help">
      <summary>How to search</summary>
      <p>
        Words match the name, code or remarks of a station, its owner, or the remarks of its time series groups; accents and case
        do not matter. Several terms must all match. Search types:
      </p>
      <dl>
        {TYPES.map((t) => (
          <div key={t.term}>
            <dt>
              <Link href={`/?${new URLSearchParams({ q: t.example })}`}>
                <code>{t.example}</code>
              </Link>
            </dt>
            <dd>{t.text}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
