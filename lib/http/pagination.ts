import { settings } from "@/lib/config";
import { invalidPage } from "@/lib/http/errors";
import { requestOrigin } from "@/lib/http/urls";

/** DRF page-number pagination with the `page_size` extension (api.md §1.5). */
export interface PageRequest {
  page: number | "last";
  pageSize: number;
}

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export function pageRequest(url: URL): PageRequest {
  const { pageSize: defaultSize, maxPageSize } = settings();
  const rawSize = url.searchParams.get("page_size");
  let pageSize = defaultSize;
  if (rawSize !== null && /^\s*\d+\s*$/.test(rawSize) && Number(rawSize) >= 1) {
    pageSize = Math.min(Number(rawSize), maxPageSize);
  }
  const rawPage = url.searchParams.get("page");
  if (rawPage === null || rawPage === "") return { page: 1, pageSize };
  if (rawPage === "last") return { page: "last", pageSize };
  if (!/^\d+$/.test(rawPage) || Number(rawPage) < 1 || !Number.isSafeInteger(Number(rawPage))) throw invalidPage();
  return { page: Number(rawPage), pageSize };
}

/** The page number and slice for a list of `count` items; 404 Invalid page beyond the end. */
export function resolvePage(count: number, request: PageRequest): { number: number; offset: number; limit: number; last: number } {
  const last = Math.max(1, Math.ceil(count / request.pageSize));
  const number = request.page === "last" ? last : request.page;
  if (number > last) throw invalidPage();
  return { number, offset: (number - 1) * request.pageSize, limit: request.pageSize, last };
}

/** The absolute URL of another page: same path and query, `page` replaced (absent for page 1). */
export function pageUrl(request: Request, url: URL, page: number): string {
  const pairs = [...url.searchParams.entries()];
  const out: [string, string][] = [];
  let placed = false;
  for (const [key, value] of pairs) {
    if (key !== "page") out.push([key, value]);
    else if (!placed) {
      placed = true;
      if (page !== 1) out.push(["page", String(page)]);
    }
  }
  if (!placed && page !== 1) out.push(["page", String(page)]);
  const query = new URLSearchParams(out).toString();
  return `${requestOrigin(request)}${url.pathname}${query ? `?${query}` : ""}`;
}

/**
 * Builds a page from a counting function and a fetching function, so that the database does
 * the slicing.
 */
export async function paginate<T>(
  request: Request,
  url: URL,
  count: number,
  fetch: (offset: number, limit: number) => Promise<T[]>,
): Promise<Page<T>> {
  const page = resolvePage(count, pageRequest(url));
  const results = count === 0 ? [] : await fetch(page.offset, page.limit);
  return {
    count,
    next: page.number < page.last ? pageUrl(request, url, page.number + 1) : null,
    previous: page.number > 1 ? pageUrl(request, url, page.number - 1) : null,
    results,
  };
}
