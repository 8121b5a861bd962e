import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import ManagedForm, { CheckboxField, ErrorsFor, SelectField, TextArea, TextField } from "@/components/manage/Form";
import { Done, ManageHeader, Pager, pageNumber, Section, Table } from "@/components/manage/parts";
import TelemetryFetch, { type FetchRun } from "@/components/manage/TelemetryFetch";
import { ValidationFailed } from "@/lib/domain/errors";
import { IANA_ZONE_NAMES } from "@/lib/formats/tz-names";
import { pathId } from "@/lib/frontend";
import { guarded, lookupChoices, stationGroupChoices, stationPageMetadata } from "@/lib/manage";
import type { SiteUser } from "@/lib/site/current-user";
import { formToken } from "@/lib/site/form-token";
import { formatCountIn } from "@/lib/i18n";
import { requestLocale } from "@/lib/site/locale";
import { managePaths } from "@/lib/site/manage-paths";
import { stationJsonById } from "@/lib/stations";
import {
  type FieldMeta, loadTelemetry, type RemoteItem, startWizard, TELEMETRY_TYPES, telemetryPage, telemetryType, wizardChoices, type WizardState,
} from "@/lib/telemetry";
import { fetchNow, saveAlerts, wizardCancel, wizardConnection, wizardSensors, wizardStation, wizardType } from "./actions";
import { wizardFromCookie } from "./wizard-cookie";
import { scheduleIn, telemetryTypeWords } from "./words";

type Params = Promise<{ sid: string }>;
type Search = Promise<Record<string, string | string[] | undefined>>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return stationPageMetadata((await getTranslations("manageOpsTelemetry"))("title"), params);
}

const STEPS = ["type", "connection", "station", "sensors"] as const;
type Step = (typeof STEPS)[number];

const utc = (d: Date | null) => (d ? `${d.toISOString().slice(0, 16).replace("T", " ")} UTC` : "—");
const LOG_PAGE = 20;

/**
 * `{site}/manage/stations/{sid}/telemetry/` (telemetry.md §5, the station's editors): the
 * telemetry's configuration, state and next fetch, "Fetch now" with its progress and result, the
 * feed alerts and the log; with `?step=…`, the wizard that sets it up.
 */
export default async function TelemetryManagePage({ params, searchParams }: { params: Params; searchParams: Search }) {
  const [{ sid: sidText }, query] = await Promise.all([params, searchParams]);
  const sid = pathId(sidText) ?? 0;
  const page = pageNumber(query.page);
  const { user, data } = await guarded(`/manage/stations/${sidText}/telemetry/`, async (u) => {
    const [overview, station] = await Promise.all([telemetryPage(u, sid, (page - 1) * LOG_PAGE, LOG_PAGE), stationJsonById(sid)]);
    return { overview, station: station! };
  });
  const [t, locale] = await Promise.all([getTranslations("manageOpsTelemetry"), requestLocale()]);
  const token = formToken(user.sessionId);
  const stationName = data.station.name || t("stationFallback", { id: String(sid) });
  const step = STEPS.find((s) => s === query.step) ?? null;
  const crumbs = [{ label: stationName, href: managePaths.station(sid) }, { label: t("title"), href: step ? `${managePaths.station(sid)}telemetry/` : undefined }];
  if (step) {
    return (
      <div className="page manage narrow-wide">
        <ManageHeader crumbs={crumbs} title={`${stationName}: ${t("title")}`} lead={t("lead")} />
        {/* A step of its own: each step's form starts from its own values, not the last step's answer. */}
        <Wizard key={step} sid={sid} step={step} token={token} user={user} />
      </div>
    );
  }
  const { telemetry, typeName, sensors, lastFetch, logCount, log } = data.overview;
  const kind = telemetry && telemetryType(telemetry.type);
  const base = `${managePaths.station(sid)}telemetry/`;
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={crumbs} title={`${stationName}: ${t("title")}`} lead={t("lead")}
        actions={<>
          <Link className="button" href={`${base}?step=type`}>{telemetry ? t("change") : t("setUp")}</Link>
          {telemetry && <Link className="button danger-link" href={`${base}delete/`}>{t("delete")}</Link>}
        </>} />
      <Done code={query.done} />
      {!telemetry ? <section className="card"><p>{t("none")}</p></section> : (
        <>
          <Section id="configuration" title={t("overview")}>
            <dl className="details">
              <div><dt>{t("type")}</dt><dd>{kind ? telemetryTypeWords(locale).name(kind) : typeName}</dd></div>
              <div><dt>{t("schedule")}</dt><dd>{scheduleIn(locale, telemetry.fetchIntervalMinutes, telemetry.fetchOffsetMinutes)}</dd></div>
              <div><dt>{t("nextFetch")}</dt><dd data-testid="next-fetch">{utc(telemetry.nextFetch)}</dd></div>
              <div><dt>{t("lastFetch")}</dt><dd>{utc(telemetry.lastFetch)}</dd></div>
              <div><dt>{t("status")}</dt><dd><span className={`badge telemetry-${telemetry.status}`}>{t(`statusBadge.${telemetry.status}`)}</span> {t(`statusWords.${telemetry.status}`)}</dd></div>
              {telemetry.remoteStationId && <div><dt>{t("steps.station")}</dt><dd><code>{telemetry.remoteStationId}</code></dd></div>}
            </dl>
            <h3>{t("sensors")}</h3>
            {sensors.length === 0 ? <p className="muted">{t("noMapped")}</p> : (
              <Table columns={[t("colSensor"), t("colGroup"), t("colFeed")]}>
                {sensors.map((s) => (
                  <tr key={s.sensorId}>
                    <th scope="row"><code>{s.sensorId}</code></th>
                    <td data-label={t("colGroup")}><Link href={managePaths.group(sid, s.groupId)}>{s.groupName || t("groupFallback", { id: String(s.groupId) })}</Link></td>
                    <td data-label={t("colFeed")}>
                      {s.staleSince && <span className="badge feed-stale">{t("staleSince", { when: utc(s.staleSince) })}</span>}
                      {s.stuckSince && <span className="badge feed-stuck">{t("stuckSince", { when: utc(s.stuckSince) })}</span>}
                      {!s.staleSince && !s.stuckSince && <span className="muted">{t("ok")}</span>}
                    </td>
                  </tr>
                ))}
              </Table>
            )}
          </Section>

          <Section id="fetch" title={t("fetch")}>
            <p className="muted">{t("fetchLead")}</p>
            <ManagedForm action={fetchNow.bind(null, sid)} initial={{}} token={token} submit={t("fetch")} label={t("fetch")} className="inline-form" />
            <TelemetryFetch api={`/api/stations/${sid}/telemetry/fetch/`} initial={lastFetch as FetchRun | null} />
          </Section>

          <Section id="alerts" title={t("alerts")}>
            <p className="muted">{t("alertsLead")}</p>
            <ManagedForm action={saveAlerts.bind(null, sid)} token={token} submit={t("saveAlerts")} label={t("alerts")}
              initial={{ stale_after_minutes: telemetry.staleAfterMinutes?.toString() ?? "", stuck_after_values: telemetry.stuckAfterValues?.toString() ?? "", alert_emails: telemetry.alertEmails.join("\n") }}>
              <div className="form-grid">
                <TextField name="stale_after_minutes" label={t("staleLabel")} type="number" inputMode="numeric" help={t("staleHelp")} />
                <TextField name="stuck_after_values" label={t("stuckLabel")} type="number" inputMode="numeric" help={t("stuckHelp")} />
              </div>
              <TextArea name="alert_emails" label={t("emailsLabel")} rows={3} help={t("emailsHelp")} />
            </ManagedForm>
          </Section>

          <Section id="log" title={t("log")}>
            <p className="muted">{t("logLead")}</p>
            {log.length === 0 ? <p className="muted">{t("logEmpty")}</p> : (
              <Table columns={[t("colWhen"), t("colSensor"), t("colRecords"), t("colWhat")]}>
                {log.map((l) => (
                  <tr key={l.id} data-status={l.status}>
                    <td data-label={t("colWhen")} className="nowrap">{utc(new Date(l.finished))}</td>
                    <td data-label={t("colSensor")}>{l.sensor === null ? <span className="muted">{t("wholeFetch")}</span> : <code>{l.sensor}</code>}</td>
                    <td data-label={t("colRecords")}>{formatCountIn(locale, l.records)}</td>
                    <td data-label={t("colWhat")}>{l.status === "ok" ? (l.message || t("ok")) : <span className="error-text">{l.message}</span>}</td>
                  </tr>
                ))}
              </Table>
            )}
            <Pager page={page} pages={Math.ceil(logCount / LOG_PAGE)} params={{}} path={base} />
          </Section>
        </>
      )}
    </div>
  );
}

/** The wizard's step headings. */
async function Steps({ step, listsStations }: { step: Step; listsStations: boolean }) {
  const t = await getTranslations("manageOpsTelemetry");
  const shown = STEPS.filter((s) => listsStations || s !== "station");
  const index = shown.indexOf(step);
  return (
    <ol className="wizard-steps" aria-label={t("stepsLabel")}>
      {shown.map((s, i) => (
        <li key={s} aria-current={s === step ? "step" : undefined} className={i < index ? "done" : s === step ? "current" : undefined}>{t(`steps.${s}`)}</li>
      ))}
    </ol>
  );
}

async function Wizard({ sid, step, token, user }: { sid: number; step: Step; token: string; user: SiteUser }) {
  const base = `${managePaths.station(sid)}telemetry/`;
  const [t, locale] = await Promise.all([getTranslations("manageOpsTelemetry"), requestLocale()]);
  const words = telemetryTypeWords(locale);
  const saved = await loadTelemetry(sid);
  const state: WizardState | null = (await wizardFromCookie(sid)) ?? (step === "type" ? startWizard(sid, saved) : null);
  const cancel = (
    <ManagedForm action={wizardCancel.bind(null, sid)} initial={{}} token={token} submit={t("cancel")} label={t("cancel")} className="inline-form secondary-form" />
  );
  if (!state || (step !== "type" && !telemetryType(state.type))) {
    return (
      <section className="card">
        <p className="message error" role="alert">{t("expired")}</p>
        <p><Link className="button" href={`${base}?step=type`}>{t("steps.type")}</Link></p>
      </section>
    );
  }
  const type = telemetryType(state.type);
  const listsStations = type?.listsStations ?? true;
  const shown = STEPS.filter((s) => listsStations || s !== "station");
  const heading = t("step", { n: shown.indexOf(step) + 1, of: shown.length, name: t(`steps.${step}`) });
  const previous = shown[shown.indexOf(step) - 1];
  const back = previous ? <Link href={`${base}?step=${previous}`}>{t("back")}</Link> : null;

  if (step === "type") {
    return (
      <Section id="wizard" title={heading}>
        <Steps step={step} listsStations={listsStations} />
        <ManagedForm action={wizardType.bind(null, sid)} token={token} submit={t("next")} label={heading}
          initial={{ type: state.type, data_timezone: state.data_timezone, fetch_interval_minutes: String(state.fetch_interval_minutes), fetch_offset_minutes: String(state.fetch_offset_minutes) }}>
          <SelectField name="type" label={t("typeLabel")} required help={t("typeHelp")} empty="—" options={TELEMETRY_TYPES.map((type) => ({ value: type.id, label: words.name(type) }))} />
          <SelectField name="data_timezone" label={t("zoneLabel")} required help={t("zoneHelp")} options={IANA_ZONE_NAMES.map((z) => ({ value: z, label: z }))} />
          <div className="form-grid">
            <TextField name="fetch_interval_minutes" label={t("intervalLabel")} type="number" inputMode="numeric" required help={t("intervalHelp")} />
            <TextField name="fetch_offset_minutes" label={t("offsetLabel")} type="number" inputMode="numeric" required help={t("offsetHelp")} />
          </div>
        </ManagedForm>
        {cancel}
      </Section>
    );
  }

  if (step === "connection") {
    // A password typed in this wizard, or the saved one (kept for the same type).
    const passwordStored = state.password === null ? saved !== null && saved.password !== "" && saved.type === state.type : state.password !== "";
    const fields: Partial<Record<string, FieldMeta>> = Object.fromEntries(Object.entries(type!.fields).map(([key, meta]) => [key, words.field(type!, key, meta)]));
    const initial: Record<string, string> = { device_locator: state.device_locator, username: state.username, verify_tls: String(state.verify_tls) };
    for (const key of Object.keys(type!.additionalConfig)) initial[`additional_config.${key}`] = String(state.additional_config[key] ?? "");
    return (
      <Section id="wizard" title={heading}>
        <Steps step={step} listsStations={listsStations} />
        <p className="muted">{words.name(type!)}. {t("connectionTest")}</p>
        <ManagedForm action={wizardConnection.bind(null, sid)} token={token} submit={t("next")} label={heading} initial={initial}>
          <ErrorsFor name="connection" />
          {fields.device_locator && <TextField name="device_locator" label={fields.device_locator.label} help={fields.device_locator.help || undefined} required={fields.device_locator.required} />}
          {fields.username && <TextField name="username" label={fields.username.label} help={fields.username.help || undefined} required={fields.username.required} autoComplete="off" />}
          {fields.password && (
            <TextField name="password" label={fields.password.label} type="password" autoComplete="new-password" required={fields.password.required && !passwordStored}
              help={[fields.password.help, passwordStored ? t("passwordKept") : ""].filter(Boolean).join(" ") || undefined} />
          )}
          {Object.entries(type!.additionalConfig).map(([key, own]) => [key, words.field(type!, key, own)] as const).map(([key, meta]) => (
            <TextField key={key} name={`additional_config.${key}`} label={meta.label} help={meta.help || undefined} required={meta.required} />
          ))}
          <ErrorsFor name="additional_config" />
          {listsStations && (
            <TextField name="remote_station_id" label={t("stationByHand", { label: fields.remote_station_id?.label ?? t("steps.station") })} help={t("stationByHandHelp")} autoComplete="off" />
          )}
          <CheckboxField name="verify_tls" label={t("verifyTls")} help={t("verifyTlsHelp")} />
        </ManagedForm>
        <p>{back}</p>
        {cancel}
      </Section>
    );
  }

  let items: RemoteItem[] = [];
  let problem: string | null = null;
  try {
    items = await wizardChoices(user, sid, state, step === "station" ? "stations" : "sensors");
  } catch (error) {
    if (!(error instanceof ValidationFailed)) throw error;
    problem = Object.values(error.fields).flat().join(" ");
  }
  if (problem !== null) {
    return (
      <Section id="wizard" title={heading}>
        <Steps step={step} listsStations={listsStations} />
        <p className="message error" role="alert">{t("vendorFailed")} {problem}</p>
        <p>{back}</p>
        {cancel}
      </Section>
    );
  }

  if (step === "station") {
    return (
      <Section id="wizard" title={heading}>
        <Steps step={step} listsStations={listsStations} />
        <ManagedForm action={wizardStation.bind(null, sid)} token={token} submit={t("next")} label={heading} initial={{ remote_station_id: state.remote_station_id }}>
          <SelectField name="remote_station_id" label={type!.fields.remote_station_id ? words.field(type!, "remote_station_id", type!.fields.remote_station_id).label : t("steps.station")} required help={t("stationPrompt")} empty="—"
            options={items.map((s) => ({ value: s.id, label: s.name ? `${s.name} (${s.id})` : s.id }))} />
        </ManagedForm>
        <p>{back}</p>
        {cancel}
      </Section>
    );
  }

  const [groups, choices] = await Promise.all([stationGroupChoices(sid), lookupChoices()]);
  const mapped = new Map((saved?.type === state.type ? saved.sensors : []).map((s) => [s.sensor_id, String(s.timeseries_group)]));
  const initial: Record<string, string> = {};
  for (const s of items) initial[`sensor.${s.id}`] = mapped.get(s.id) ?? "";
  const variables = choices.variables.map((v) => ({ value: String(v.id), label: v.label }));
  const units = choices.units.map((u) => ({ value: String(u.id), label: u.label }));
  return (
    <Section id="wizard" title={heading}>
      <Steps step={step} listsStations={listsStations} />
      {items.length === 0 && <p className="muted">{t("noSensors")}</p>}
      <ManagedForm action={wizardSensors.bind(null, sid)} token={token} submit={t("finish")} label={heading} initial={initial}>
        {/* What the saved configuration's rules refuse, in the API's words. */}
        {["sensors", "type", "device_locator", "username", "password", "remote_station_id", "additional_config"].map((name) => <ErrorsFor key={name} name={name} />)}
        {items.map((s) => {
          const label = words.sensorPrompt(type!, s.name ? `"${s.name}" (${s.id})` : `"${s.id}"`);
          return (
            <fieldset key={s.id} className="field-group sensor-choice">
              <SelectField name={`sensor.${s.id}`} label={label} options={[{ value: "", label: words.ignoreSensorPrompt(type!) }, ...groups, { value: "new", label: t("newGroup") }]} />
              <details>
                <summary>{t("newGroupDetails")}</summary>
                <div className="form-grid">
                  <TextField name={`new_name.${s.id}`} label={t("newName")} placeholder={s.name || s.id} />
                  <SelectField name={`new_variable.${s.id}`} label={t("newVariable")} options={variables} empty="—" />
                  <SelectField name={`new_unit.${s.id}`} label={t("newUnit")} options={units} empty="—" />
                </div>
              </details>
            </fieldset>
          );
        })}
      </ManagedForm>
      <p>{back}</p>
      {cancel}
    </Section>
  );
}
