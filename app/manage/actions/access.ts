"use server";

import { headers } from "next/headers";
import { approveAccessRequest, createAccessRequest, denyAccessRequest, readAccessRequest, readApproval, readDenial } from "@/lib/access";
import { siteRoot } from "@/lib/http/urls";
import type { FormState } from "@/lib/site/form-state";
import { boundId, formInput, submitForm } from "@/lib/site/manage-form";
import { requestLocale } from "@/lib/site/locale";
import { groupPath, stationPath } from "@/lib/site/paths";

/**
 * The server actions of access requests (public.md §2): the request on the station page, and the
 * decisions on /manage/. Each calls the API's service with the API's field readers (so the pages
 * show the API's messages); ids bound by the pages are checked like path ids.
 */

/** {site} for links in the e-mails: ENHYDRIS_SITE_URL, else this request's origin (api.md §13). */
async function site(): Promise<string> {
  const h = await headers();
  return siteRoot(new Request(`http://${h.get("host") ?? "localhost"}/`, { headers: new Headers(h) }));
}

/**
 * The access request of the station and series pages (public.md §2: "Request access" with a
 * short message field on both). `gidValue`, the series page's group (0 on the station page), only
 * names the page to return to.
 */
export async function requestAccess(sidValue: unknown, gidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const sid = boundId(sidValue);
  const gid = boundId(gidValue);
  return submitForm(prev, form, async (user) => {
    await createAccessRequest(user, sid, () => readAccessRequest(formInput(form)), await site(), await requestLocale());
    // Another address than the form's page: to the same one (only its #access added), the browser's
    // router would move to the anchor without asking the server for the page, which still showed the form.
    return `${gid ? groupPath(sid, gid) : stationPath(sid)}?access=requested#access`;
  });
}

export async function approveAccess(sidValue: unknown, ridValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const [sid, rid] = [boundId(sidValue), boundId(ridValue)];
  return submitForm(prev, form, async (user) => {
    await approveAccessRequest(user, sid, rid, () => readApproval(formInput(form)), await site(), await requestLocale());
    return "/manage/?done=access-approved#access-requests";
  });
}

export async function denyAccess(sidValue: unknown, ridValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const [sid, rid] = [boundId(sidValue), boundId(ridValue)];
  return submitForm(prev, form, async (user) => {
    await denyAccessRequest(user, sid, rid, () => readDenial(formInput(form)), await site(), await requestLocale());
    return "/manage/?done=access-denied#access-requests";
  });
}
