import { cookies } from "next/headers";
import { settings } from "@/lib/config";
import { openWizard, type WizardState } from "@/lib/telemetry";

/**
 * Where the telemetry wizard keeps what its earlier steps gave, between its pages: a cookie of
 * the station's telemetry pages only, holding the sealed state (lib/telemetry/wizard.ts), so that
 * a typed password is never written into a page.
 */
const NAME = "enhydris_telemetry_wizard";
const path = (sid: number) => `/manage/stations/${sid}/telemetry/`;

export async function wizardFromCookie(sid: number): Promise<WizardState | null> {
  return openWizard((await cookies()).get(NAME)?.value, sid);
}

export async function keepWizard(sid: number, sealed: string): Promise<void> {
  (await cookies()).set(NAME, sealed, { path: path(sid), httpOnly: true, sameSite: "lax", secure: settings().siteUrl.startsWith("https:"), maxAge: 3 * 3600 });
}

export async function forgetWizard(sid: number): Promise<void> {
  (await cookies()).set(NAME, "", { path: path(sid), httpOnly: true, sameSite: "lax", maxAge: 0 });
}
