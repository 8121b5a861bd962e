import type { Metadata } from "next";
import Link from "next/link";
import { FORBIDDEN_TITLE } from "@/lib/manage";

export const metadata: Metadata = { title: FORBIDDEN_TITLE };

/** 403 (management.md §1): a page the user may not use. */
export default function Forbidden() {
  return (
    <div className="narrow">
      <div className="card">
        <h1>You do not have permission to see this page</h1>
        <p>Only the people who may change it can open it: the editors of its station, the creator of a synoptic group, or for lookups, users and replication the administrators. A station copied from another instance (replication) is read-only here until an administrator detaches it.</p>
        <p><Link href="/manage/">Your stations</Link> · <Link href="/">Station map</Link></p>
      </div>
    </div>
  );
}
