import type { Metadata } from "next";
import Link from "next/link";

export const metadata: Metadata = { title: "Not allowed" };

/** 403 (management.md §1): a page the user may not use. */
export default function Forbidden() {
  return (
    <div className="narrow">
      <div className="card">
        <h1>You do not have permission to see this page</h1>
        <p>Only the people who may edit this station (or, for lookups and users, the administrators) can open it.</p>
        <p><Link href="/manage/">Your stations</Link> · <Link href="/">Station map</Link></p>
      </div>
    </div>
  );
}
