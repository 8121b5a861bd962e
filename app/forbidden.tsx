import type { Metadata } from "next";
import Link from "next/link";

export const metadata: Metadata = { title: "Not allowed" };

/** The 403 page (management.md: a page or action the user may not use answers 403). */
export default function Forbidden() {
  return (
    <div className="narrow">
      <div className="card">
        <h1>Not allowed</h1>
        <p>You do not have permission to perform this action. Ask its owner or an administrator if you need to.</p>
        <p><Link href="/">Back to the station map</Link></p>
      </div>
    </div>
  );
}
