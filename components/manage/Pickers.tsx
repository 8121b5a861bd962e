"use client";

import { useTranslations } from "next-intl";
import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { findOwners, findUsers } from "@/app/manage/actions/stations";
import { FieldMessages, useFormState } from "@/components/manage/Form";
import { valueList, valueText } from "@/lib/site/form-state";

/**
 * Choosing objects by typing part of a name (management.md §2): the owner of a station, its
 * maintainers and data viewers. An ARIA combobox: type, then pick with the arrow keys and Enter,
 * or with a click; the choice is a hidden field with the id the API takes.
 */
interface Choice {
  id: number;
  label: string;
  detail?: string;
}

function Combobox({ label, required, search, onChoose, placeholder, invalid, describedBy, initial = "", clearOnChoose }: {
  label: string;
  required?: boolean;
  search(q: string): Promise<Choice[]>;
  onChoose(choice: Choice): void;
  placeholder?: string;
  invalid?: boolean;
  describedBy?: string;
  initial?: string;
  /** Empty the box after a choice (adding to a list) instead of showing the choice. */
  clearOnChoose?: boolean;
}) {
  const id = useId();
  const [text, setText] = useState(initial);
  const [choices, setChoices] = useState<Choice[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const ticket = useRef(0);
  // The latest search function, without re-running the search each time the parent renders.
  const searchRef = useRef(search);
  useEffect(() => {
    searchRef.current = search;
  }, [search]);

  useEffect(() => {
    if (!open) return;
    const mine = ++ticket.current;
    const timer = setTimeout(async () => {
      const found = await searchRef.current(text);
      if (mine === ticket.current) {
        setChoices(found);
        setActive(found.length ? 0 : -1);
      }
    }, 200);
    return () => clearTimeout(timer);
  }, [text, open]);

  const choose = (c: Choice) => {
    onChoose(c);
    setText(clearOnChoose ? "" : c.label);
    setOpen(false);
  };
  const keys = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "ArrowDown") {
      e.preventDefault();
      setOpen(true);
      setActive((a) => Math.min(a + 1, choices.length - 1));
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      setActive((a) => Math.max(a - 1, 0));
    } else if (e.key === "Enter" && open) {
      // Enter picks the highlighted choice instead of submitting the form.
      e.preventDefault();
      if (choices[active]) choose(choices[active]);
    } else if (e.key === "Escape") {
      setOpen(false);
    }
  };
  return (
    <div className="combobox">
      <label htmlFor={`${id}-input`}>{label}{required && <span className="required" aria-hidden="true"> *</span>}</label>
      <input id={`${id}-input`} role="combobox" aria-expanded={open && choices.length > 0} aria-controls={`${id}-list`} aria-autocomplete="list"
        aria-activedescendant={open && active >= 0 ? `${id}-option-${active}` : undefined} aria-invalid={invalid || undefined} aria-describedby={describedBy}
        value={text} placeholder={placeholder} autoComplete="off"
        onChange={(e) => { setText(e.target.value); setOpen(true); }} onFocus={() => setOpen(true)} onKeyDown={keys}
        onBlur={() => setTimeout(() => setOpen(false), 150)} />
      <ul id={`${id}-list`} role="listbox" className="combobox-list" hidden={!open || choices.length === 0} aria-label={label}>
        {choices.map((c, i) => (
          <li key={c.id} id={`${id}-option-${i}`} role="option" aria-selected={i === active} className={i === active ? "active" : undefined}
            onMouseDown={(e) => { e.preventDefault(); choose(c); }}>
            {c.label}{c.detail && <span className="muted small"> · {c.detail}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The owner of a station: an organization or a person. The chosen owner's name travels with the
 * form (`owner_label`) so that it is shown again after a refusal. Without JavaScript the page's
 * own list (in <noscript>) chooses instead.
 */
export function OwnerPicker({ fallback }: { fallback: { id: number; name: string }[] }) {
  return <OwnerField key={useFormState().seq} fallback={fallback} />;
}

function OwnerField({ fallback }: { fallback: { id: number; name: string }[] }) {
  const state = useFormState();
  const t = useTranslations("managePickers");
  const tf = useTranslations("manageForm");
  const id = useId();
  const searchOwners = async (q: string): Promise<Choice[]> =>
    (await findOwners(q)).map((o) => ({ id: o.id, label: o.name || `#${o.id}`, detail: t(o.kind) }));
  const [owner, setOwner] = useState({ id: valueText(state.values, "owner"), label: valueText(state.values, "owner_label") });
  const errors = state.errors.owner;
  const stored = state.current && valueText(state.current, "owner") !== owner.id ? valueText(state.current, "owner_label") : null;
  return (
    <div className={`field${errors?.length ? " has-errors" : ""}`}>
      {/* Sent only when chosen: a missing owner is "This field is required.", as in the API. */}
      {owner.id && <input type="hidden" name="owner" value={owner.id} />}
      <input type="hidden" name="owner_label" value={owner.label} />
      <Combobox label={t("owner")} required search={searchOwners} initial={owner.label} placeholder={t("ownerPlaceholder")}
        onChoose={(c) => setOwner({ id: String(c.id), label: c.label })} invalid={!!errors?.length}
        describedBy={`${id}-help${errors?.length ? ` ${id}-errors` : ""}`} />
      <p className="help" id={`${id}-help`}>
        {owner.id ? t.rich("ownerHelpChosen", { owner: owner.label || `#${owner.id}`, strong: (chunks) => <strong>{chunks}</strong> }) : t("ownerHelp")}
      </p>
      <noscript>
        <label htmlFor={`${id}-fallback`}>{t("ownerNoScript")}</label>
        <select id={`${id}-fallback`} name="owner" defaultValue={owner.id}>
          <option value="">—</option>
          {fallback.map((o) => <option key={o.id} value={o.id}>{o.name}</option>)}
        </select>
      </noscript>
      <FieldMessages id={`${id}-errors`} errors={errors} />
      {stored !== null && <p className="stored-value">{tf("savedNow", { value: stored })}</p>}
    </div>
  );
}

/**
 * Users chosen by username (a station's maintainers or data viewers): a list with a remove button
 * each and a search to add more. The empty first value keeps an empty list (api.md §1.2).
 */
interface UserPickerProps {
  name: string;
  label: string;
  help: string;
  stationId: number | null;
}

export function UserPicker(props: UserPickerProps) {
  return <UserField key={useFormState().seq} {...props} />;
}

function UserField({ name, label, help, stationId }: UserPickerProps) {
  const state = useFormState();
  const t = useTranslations("managePickers");
  const tf = useTranslations("manageForm");
  const id = useId();
  const labels = (() => {
    try {
      return JSON.parse(valueText(state.values, `${name}_labels`) || "{}") as Record<string, string>;
    } catch {
      return {};
    }
  })();
  const [chosen, setChosen] = useState<Choice[]>(() => valueList(state.values, name).map((v) => ({ id: Number(v), label: labels[v] ?? `#${v}` })));
  const search = async (q: string): Promise<Choice[]> =>
    (await findUsers(stationId, q)).filter((u) => !chosen.some((c) => c.id === u.id)).map((u) => ({ id: u.id, label: u.username, detail: u.name || undefined }));
  const errors = state.errors[name];
  const stored = state.current ? valueList(state.current, name) : null;
  const differs = stored !== null && [...stored].sort().join() !== chosen.map((c) => String(c.id)).sort().join();
  return (
    <fieldset className={`field user-picker${errors?.length ? " has-errors" : ""}`}>
      <legend>{label}</legend>
      <input type="hidden" name={name} value="" />
      {chosen.map((c) => <input key={c.id} type="hidden" name={name} value={c.id} />)}
      <input type="hidden" name={`${name}_labels`} value={JSON.stringify(Object.fromEntries(chosen.map((c) => [c.id, c.label])))} />
      {chosen.length ? (
        <ul className="chips">
          {chosen.map((c) => (
            <li key={c.id}>
              <span>{c.label}</span>
              <button type="button" className="chip-remove" aria-label={t("remove", { name: c.label })} onClick={() => setChosen(chosen.filter((x) => x.id !== c.id))}>×</button>
            </li>
          ))}
        </ul>
      ) : <p className="muted small">{t("nobody")}</p>}
      <Combobox label={t("addTo", { list: label.toLowerCase() })} search={search} placeholder={t("userPlaceholder")} onChoose={(c) => setChosen([...chosen, c])}
        clearOnChoose describedBy={`${id}-help`} />
      <p className="help" id={`${id}-help`}>{help}</p>
      <FieldMessages id={`${id}-errors`} errors={errors} />
      {differs && <p className="stored-value">{tf("savedNow", { value: stored!.map((v) => `#${v}`).join(", ") || t("nobodySaved") })}</p>}
    </fieldset>
  );
}
