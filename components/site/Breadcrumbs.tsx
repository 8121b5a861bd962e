import Link from "next/link";
import { useTranslations } from "next-intl";

/** One step of a page's breadcrumb trail: a link, or (the last, without `href`) the page itself. */
export interface Crumb {
  label: string;
  href?: string;
}

/**
 * The breadcrumb trail above a page's header, the same on every page. Its links are not
 * prefetched: each prefetch renders a page on the server while this one is still loading its data.
 */
export function Breadcrumbs({ crumbs }: { crumbs: Crumb[] }) {
  const t = useTranslations("common");
  return (
    <nav className="breadcrumbs" aria-label={t("breadcrumb")}>
      <ol>
        {crumbs.map((c, i) => (
          <li key={i} aria-current={c.href ? undefined : "page"}>{c.href ? <Link href={c.href} prefetch={false}>{c.label}</Link> : c.label}</li>
        ))}
      </ol>
    </nav>
  );
}
