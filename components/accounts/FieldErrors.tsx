import { useLocale } from "next-intl";
import { inFormWords } from "@/lib/site/form-words";

/**
 * The messages of one form field, tied to its input by id (aria-describedby); the API's member
 * names as the forms label them, and for a time step how to write one (`field`: the field's name).
 * Pages in another language than English get the messages already in their words from the
 * server (lib/site/field-errors.ts).
 */
export default function FieldErrors({ id, errors, field }: { id: string; errors?: string[]; field?: string }) {
  const english = useLocale() === "en";
  if (!errors?.length) return null;
  return (
    <ul className="field-errors" id={id}>
      {errors.map((e) => (
        <li key={e}>{english ? inFormWords(e, field) : e}</li>
      ))}
    </ul>
  );
}
