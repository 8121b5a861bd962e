import { CheckboxList, Hidden, TextArea, TextField } from "@/components/manage/Form";
import type { Choice } from "@/lib/manage";
import type { LookupField } from "@/lib/lookups";

/** The fields of a lookup's form (api.md §11). */
export default function LookupFields({ fields, variables }: { fields: LookupField[]; variables: Choice[] }) {
  return (
    <>
      <Hidden name="last_modified" />
      {fields.map((f) =>
        f.kind === "text" ? <TextField key={f.name} name={f.name} label={f.label} maxLength={f.max} required={f.required} help={f.help} />
          : f.kind === "variables" ? <CheckboxList key={f.name} name={f.name} label={f.label} help={f.help} options={variables.map((v) => ({ value: String(v.id), label: v.label }))} />
          : <TextArea key={f.name} name={f.name} label={f.label} help={f.help} rows={f.kind === "geom" ? 4 : 3} required={f.required} />)}
    </>
  );
}
