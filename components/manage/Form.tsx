"use client";

import { useTranslations } from "next-intl";
import { createContext, useActionState, useContext, useId, type FormEvent, type ReactNode } from "react";
import FieldErrors from "@/components/accounts/FieldErrors";
import { useHydrated } from "@/components/site/useHydrated";
import { initialFormState, valueList, valueText, type FormState, type FormValues } from "@/lib/site/form-state";
import { inFormWords } from "@/lib/site/form-words";

/**
 * The management forms (management.md §1): a plain POST form (a server action, so it works
 * before and without JavaScript), whose fields show the API's messages next to them, keep what
 * was typed after a refusal, and, when the object changed meanwhile, show its stored values
 * beside the user's. Fields are children, rendered by the page (a server component), and read
 * the form's state from this context.
 */
type Action = (state: FormState, form: FormData) => Promise<FormState>;

const FormContext = createContext<FormState>(initialFormState({}));

/** Field messages that belong to the whole form. */
const FORM_KEYS = ["form", "non_field_errors"];

export function useFormState(): FormState {
  return useContext(FormContext);
}

export interface ManagedFormProps {
  action: Action;
  initial: FormValues;
  token: string;
  submit: string;
  children?: ReactNode;
  /** A file field is among the children. */
  multipart?: boolean;
  /** The submit button is a destructive one. */
  danger?: boolean;
  className?: string;
  label?: string;
}

export default function ManagedForm({ action, initial, token, submit, children, multipart, danger, className, label }: ManagedFormProps) {
  const [state, formAction, pending] = useActionState(action, initialFormState(initial));
  const live = useHydrated();
  const t = useTranslations("manageForm");
  return (
    <FormContext.Provider value={state}>
      <form action={formAction} className={`manage-form ${className ?? ""}`} encType={multipart ? "multipart/form-data" : undefined}
        aria-label={label} noValidate data-client="" data-hydrated={live || undefined} data-seq={state.seq} onSubmit={(event) => refuseLargeFiles(event, (limit) => t("tooLarge", { limit: String(limit) }))}>
        <input type="hidden" name="csrfmiddlewaretoken" value={token} />
        <FormStatus state={state} />
        {children}
        <div className="form-actions">
          <button type="submit" className={danger ? "danger" : undefined} disabled={pending}>{pending ? t("working") : submit}</button>
        </div>
      </form>
    </FormContext.Provider>
  );
}

/** A chosen file above the upload limit is refused here, with the API's message, instead of being sent for nothing. */
function refuseLargeFiles(event: FormEvent<HTMLFormElement>, tooLarge: (limit: number) => string) {
  for (const input of event.currentTarget.querySelectorAll<HTMLInputElement>("input[type=file][data-max-bytes]")) {
    const file = input.files?.[0];
    const limit = Number(input.dataset.maxBytes);
    if (file && file.size > limit) {
      event.preventDefault();
      input.setCustomValidity(tooLarge(limit));
      input.reportValidity();
      return;
    }
    input.setCustomValidity("");
  }
}

function FormStatus({ state }: { state: FormState }) {
  const t = useTranslations("manageForm");
  const general = FORM_KEYS.flatMap((k) => state.errors[k] ?? []);
  const fieldCount = Object.keys(state.errors).filter((k) => !FORM_KEYS.includes(k)).length;
  if (general.length || fieldCount) {
    return (
      <div className="form-errors" role="alert">
        {general.map((m) => <p key={m}>{inFormWords(m)}</p>)}
        {fieldCount > 0 && <p>{t("correct", { count: fieldCount })}</p>}
        {state.current && <p>{t("stale")}</p>}
      </div>
    );
  }
  if (state.message) return <p className="message success" role="status">{state.message}</p>;
  return null;
}

/** A hidden value of the form (it follows the state: a stale form's new `last_modified`). */
export function Hidden({ name, value }: { name: string; value?: string }) {
  const state = useFormState();
  const v = state.values[name] !== undefined ? valueText(state.values, name) : (value ?? "");
  return <input type="hidden" name={name} value={v} />;
}

interface FieldProps {
  name: string;
  label: string;
  help?: string;
  required?: boolean;
  /** How a stored value reads (selects show their option's label). */
  show?: (value: string) => string;
}

/** The label, the control, the help, the messages and the stored value of one field. */
function Field({ name, label, help, required, show, control }: FieldProps & { control: (ids: { id: string; describedBy?: string; invalid: boolean; key: string }) => ReactNode }) {
  const state = useFormState();
  const t = useTranslations("manageForm");
  const id = `${useId()}-${name}`;
  const errors = state.errors[name];
  const stored = state.current && valueText(state.current, name) !== valueText(state.values, name) ? valueText(state.current, name) : null;
  const describedBy = [help ? `${id}-help` : "", errors?.length ? `${id}-errors` : "", stored !== null ? `${id}-stored` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`field${errors?.length ? " has-errors" : ""}`}>
      <label htmlFor={id}>{label}{required && <span className="required" aria-hidden="true"> *</span>}</label>
      {control({ id, describedBy, invalid: !!errors?.length, key: `${name}-${state.seq}` })}
      {help && <p className="help" id={`${id}-help`}>{help}</p>}
      <FieldMessages id={`${id}-errors`} errors={errors} field={name} />
      {stored !== null && <p className="stored-value" id={`${id}-stored`}>{t("savedNow", { value: stored === "" ? t("empty") : show ? show(stored) : stored })}</p>}
    </div>
  );
}

export function FieldMessages({ id, errors, field }: { id: string; errors?: string[]; field?: string }) {
  return <FieldErrors id={id} errors={errors} field={field} />;
}

export function TextField(props: FieldProps & { type?: "text" | "email" | "date" | "number" | "password"; maxLength?: number; inputMode?: "decimal" | "numeric"; autoComplete?: string; placeholder?: string }) {
  const state = useFormState();
  const { name, type = "text", maxLength, inputMode, autoComplete, placeholder, required } = props;
  return (
    <Field {...props} control={({ id, describedBy, invalid, key }) => (
      // Numbers are typed as text: the server reads them as the API does (and says what is wrong).
      <input key={key} id={id} name={name} type={type === "number" ? "text" : type} inputMode={type === "number" ? (inputMode ?? "decimal") : inputMode}
        defaultValue={valueText(state.values, name)} maxLength={maxLength} autoComplete={autoComplete ?? "off"} placeholder={placeholder}
        aria-required={required || undefined} aria-invalid={invalid || undefined} aria-describedby={describedBy} />
    )} />
  );
}

export function TextArea(props: FieldProps & { rows?: number }) {
  const state = useFormState();
  return (
    <Field {...props} control={({ id, describedBy, invalid, key }) => (
      <textarea key={key} id={id} name={props.name} rows={props.rows ?? 3} defaultValue={valueText(state.values, props.name)}
        aria-invalid={invalid || undefined} aria-describedby={describedBy} />
    )} />
  );
}

export interface Option {
  value: string;
  label: string;
}

export function SelectField(props: FieldProps & { options: Option[]; empty?: string }) {
  const state = useFormState();
  const { options, empty } = props;
  const show = (v: string) => options.find((o) => o.value === v)?.label ?? v;
  return (
    <Field {...props} show={show} control={({ id, describedBy, invalid, key }) => (
      <select key={key} id={id} name={props.name} defaultValue={valueText(state.values, props.name)} aria-required={props.required || undefined}
        aria-invalid={invalid || undefined} aria-describedby={describedBy}>
        {empty !== undefined && <option value="">{empty}</option>}
        {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    )} />
  );
}

/**
 * A yes/no field. A hidden "false" comes first and the box's "true" after it (the last value
 * counts), so that unticking a box is saved too: an omitted boolean keeps its stored value (api.md §1.3).
 */
export function CheckboxField({ name, label, help }: { name: string; label: string; help?: string }) {
  const state = useFormState();
  const t = useTranslations("manageForm");
  const id = `${useId()}-${name}`;
  const errors = state.errors[name];
  const checked = ["true", "on", "1"].includes(valueText(state.values, name).toLowerCase());
  const stored = state.current && valueText(state.current, name) !== valueText(state.values, name) ? valueText(state.current, name) : null;
  return (
    <div className="field checkbox-field">
      <input type="hidden" name={name} value="false" />
      <input key={`${name}-${state.seq}`} id={id} type="checkbox" name={name} value="true" defaultChecked={checked}
        aria-invalid={errors?.length ? true : undefined} aria-describedby={[help ? `${id}-help` : "", errors?.length ? `${id}-errors` : ""].filter(Boolean).join(" ") || undefined} />
      <label htmlFor={id}>{label}</label>
      {help && <p className="help" id={`${id}-help`}>{help}</p>}
      <FieldMessages id={`${id}-errors`} errors={errors} />
      {stored !== null && <p className="stored-value">{t("savedNow", { value: stored === "true" ? t("yes") : t("no") })}</p>}
    </div>
  );
}

/** Several choices of a list of references (station types); the empty first value keeps an empty list. */
export function CheckboxList({ name, label, options, help }: { name: string; label: string; options: Option[]; help?: string }) {
  const state = useFormState();
  const t = useTranslations("manageForm");
  const id = `${useId()}-${name}`;
  const chosen = new Set(valueList(state.values, name));
  const errors = state.errors[name];
  const stored = state.current ? valueList(state.current, name) : null;
  const differs = stored !== null && [...stored].sort().join() !== [...chosen].sort().join();
  return (
    <fieldset className="field checkbox-list" aria-describedby={errors?.length ? `${id}-errors` : undefined}>
      <legend>{label}</legend>
      <input type="hidden" name={name} value="" />
      {options.length === 0 && <p className="muted small">{t("noneDefined")}</p>}
      <div className="checkbox-grid">
        {options.map((o) => (
          <label key={`${o.value}-${state.seq}`} className="checkbox-option">
            <input type="checkbox" name={name} value={o.value} defaultChecked={chosen.has(o.value)} /> {o.label}
          </label>
        ))}
      </div>
      {help && <p className="help">{help}</p>}
      <FieldMessages id={`${id}-errors`} errors={errors} />
      {differs && <p className="stored-value">{t("savedNow", { value: stored!.map((v) => options.find((o) => o.value === v)?.label ?? v).join(", ") || t("none") })}</p>}
    </fieldset>
  );
}

export function FileField(props: FieldProps & { accept?: string; maxBytes: number }) {
  const state = useFormState();
  const t = useTranslations("manageForm");
  const { name, accept, maxBytes } = props;
  return (
    <Field {...props} control={({ id, describedBy, invalid, key }) => (
      <input key={key} id={id} name={name} type="file" accept={accept} aria-invalid={invalid || undefined} aria-describedby={describedBy}
        data-max-bytes={maxBytes} />
    )} help={[props.help, state.seq > 0 && Object.keys(state.errors).length ? t("chooseAgain") : ""].filter(Boolean).join(" ") || undefined} />
  );
}

/** The messages of a field that several inputs make up (a range check, a list of periods), under them. */
export function ErrorsFor({ name }: { name: string }) {
  const state = useFormState();
  const id = `${useId()}-${name}`;
  return <FieldMessages id={id} errors={state.errors[name]} />;
}
