import type { Metadata } from "next";
import Link from "next/link";
import { NOT_FOUND_TITLE } from "@/lib/manage";

export const metadata: Metadata = { title: NOT_FOUND_TITLE };

export default function NotFound() {
  return (
    <div className="narrow">
      <div className="card">
        <h1>Page not found</h1>
        <p>There is no station, time series group or page at this address. It may have been removed, or the link may be wrong.</p>
        <p><Link href="/">Back to the station map</Link></p>
      </div>
    </div>
  );
}
