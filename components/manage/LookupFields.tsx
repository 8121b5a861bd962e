import { useTranslations } from "next-intl";
import { CheckboxList, Hidden, TextArea, TextField } from "@/components/manage/Form";
import type { Messages } from "@/lib/i18n";
import type { Choice } from "@/lib/manage";
import type { LookupField } from "@/lib/lookups";

type FieldName = keyof Messages["manageLookups"]["fields"];
type HelpName = keyof Messages["manageLookups"]["help"];

/** The fields of a lookup's form (api.md §11), labelled in the page's language (lib/lookups' words are the English ones). */
export default function LookupFields({ fields, variables }: { fields: LookupField[]; variables: Choice[] }) {
  const t = useTranslations("manageLookups");
  const label = (f: LookupField) => (t.has(`fields.${f.name as FieldName}`) ? t(`fields.${f.name as FieldName}`) : f.label);
  const help = (f: LookupField) => (f.help && t.has(`help.${f.name as HelpName}`) ? t(`help.${f.name as HelpName}`) : f.help);
  return (
    <>
      <Hidden name="last_modified" />
      {fields.map((f) =>
        f.kind === "text" ? <TextField key={f.name} name={f.name} label={label(f)} maxLength={f.max} required={f.required} help={help(f)} />
          : f.kind === "variables" ? <CheckboxList key={f.name} name={f.name} label={label(f)} help={help(f)} options={variables.map((v) => ({ value: String(v.id), label: v.label }))} />
          : <TextArea key={f.name} name={f.name} label={label(f)} help={help(f)} rows={f.kind === "geom" ? 4 : 3} required={f.required} />)}
    </>
  );
}
