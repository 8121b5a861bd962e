"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

/** Renders the page again on the server every `ms` (new values without a reload of the page). */
export default function RefreshEvery({ ms }: { ms: number }) {
  const router = useRouter();
  useEffect(() => {
    const timer = setInterval(() => router.refresh(), ms);
    return () => clearInterval(timer);
  }, [router, ms]);
  return null;
}
