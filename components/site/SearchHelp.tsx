import Link from "next/link";
import { useTranslations } from "next-intl";

/** The search types (their words stay English: they are the syntax), with their text's key. */
const TYPES = [
  { term: "owner:", example: "owner:ntua", text: "owner" },
  { term: "type:", example: "type:meteorological", text: "type" },
  { term: "variable:", example: "variable:temperature", text: "variable" },
  { term: "bbox:", example: "bbox:20.5,38.5,22,40", text: "bbox" },
  { term: "in:", example: "in:epirus", text: "in" },
  { term: "ts_only:", example: "ts_only:", text: "tsOnly" },
  { term: "ts_has_years:", example: "ts_has_years:2025", text: "tsHasYears" },
] as const;

/** The short help of the search syntax (api.md §4.5). */
export default function SearchHelp() {
  const t = useTranslations("searchHelp");
  return (
    <details className="search-help">
      <summary>{t("summary")}</summary>
      <p>{t("intro")}</p>
      <dl>
        {TYPES.map((type) => (
          <div key={type.term}>
            <dt>
              <Link href={`/?${new URLSearchParams({ q: type.example })}`}>
                <code>{type.example}</code>
              </Link>
            </dt>
            <dd>{t(type.text)}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
