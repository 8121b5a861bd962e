/**
 * The bodies of `stations/{sid}/accessrequests/…` (public.md §2), read as the API reads every body
 * (lib/http/fields.ts: JSON or form-encoded, Django REST framework's messages), and the answer's
 * schema for the OpenAPI document.
 */
import { z } from "zod";
import { ValidationFailed } from "@/lib/domain/errors";
import type { RequestInput } from "@/lib/http/body";
import { choice, date, text, validatedFields } from "@/lib/http/fields";
import { ACCESS_STATUSES, type AccessStatus, type Approval, type Denial, type NewAccessRequest } from "@/lib/access/requests";

/** Longest message and reason, in characters. */
export const MAX_TEXT = 2000;

export const requestFields = () => ({ message: text({ max: MAX_TEXT }) });
export const approveFields = () => ({ valid_until: date() });
export const denyFields = () => ({ reason: text({ required: true, blank: false, max: MAX_TEXT }) });
export const statusFilter = () => choice(ACCESS_STATUSES);

export async function readAccessRequest(input: RequestInput): Promise<NewAccessRequest> {
  const v = await validatedFields(input, requestFields(), "create");
  return { message: v.message ?? "" };
}

export async function readApproval(input: RequestInput): Promise<Approval> {
  const v = await validatedFields(input, approveFields(), "create");
  return { validUntil: v.valid_until ?? null };
}

export async function readDenial(input: RequestInput): Promise<Denial> {
  const v = await validatedFields(input, denyFields(), "create");
  return { reason: v.reason! };
}

/** The `status` query parameter of the list (absent: every status). */
export function readStatusFilter(url: URL): { status?: AccessStatus } {
  const raw = url.searchParams.get("status");
  if (raw === null || raw === "") return {};
  const parsed = statusFilter().parse(raw);
  if (!parsed.ok) throw new ValidationFailed({ status: parsed.errors });
  return { status: parsed.value };
}

export const AccessRequestSchema = z.object({
  id: z.int(),
  station: z.int(),
  user: z.int(),
  username: z.string(),
  message: z.string(),
  status: z.enum(ACCESS_STATUSES).meta({ description: "pending, approved (the user reads the protected data until valid_until), denied, or expired" }),
  created: z.string(),
  decided: z.string().nullable(),
  decided_by: z.int().nullable(),
  valid_until: z.string().nullable().meta({ description: "YYYY-MM-DD: the first day without access (it ends when that day begins, UTC); null: no end" }),
  reason: z.string().meta({ description: "Why it was denied" }),
}).meta({ id: "AccessRequest", description: "A user's request to read a station's protected data" });
