import Link from "next/link";
import ManagedForm from "@/components/manage/Form";
import type { FormState } from "@/lib/site/form-state";

/**
 * The confirmation of a delete (management.md §1 "Deletes say what they take"): what goes, what
 * goes with it, and a POST button; a refusal (a lookup still in use, 409) is shown here. When the
 * delete is already known to be refused (`blocked`: why), the page says so instead, without a
 * button (the POST of a form opened earlier is still refused, with the same reason).
 */
export default function ConfirmDelete({ what, takes, note, action, token, back, blocked }: {
  what: string;
  takes: string;
  note?: string;
  action: (state: FormState, form: FormData) => Promise<FormState>;
  token: string;
  back: string;
  blocked?: string | null;
}) {
  if (blocked) {
    return (
      <section className="card confirm-delete" aria-labelledby="confirm-heading">
        <h2 id="confirm-heading">The {what} cannot be deleted</h2>
        <p className="message error" role="note">{blocked}</p>
        <p><Link href={back}>Back</Link></p>
      </section>
    );
  }
  return (
    <section className="card confirm-delete" aria-labelledby="confirm-heading">
      <h2 id="confirm-heading">Delete {what}?</h2>
      <p>{takes ? <>This also deletes <strong>{takes}</strong>.</> : "Nothing else goes with it."} It cannot be undone.</p>
      {note && <p className="muted">{note}</p>}
      <ManagedForm action={action} initial={{}} token={token} submit={`Delete ${what}`} danger label={`Delete ${what}`} />
      <p><Link href={back}>Cancel</Link></p>
    </section>
  );
}
