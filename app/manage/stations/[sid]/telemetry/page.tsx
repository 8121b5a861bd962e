import type { Metadata } from "next";
import Link from "next/link";
import ManagedForm, { CheckboxField, ErrorsFor, SelectField, TextArea, TextField } from "@/components/manage/Form";
import { Done, ManageHeader, Pager, pageNumber, Section, Table } from "@/components/manage/parts";
import TelemetryFetch, { type FetchRun } from "@/components/manage/TelemetryFetch";
import { ValidationFailed } from "@/lib/domain/errors";
import { IANA_ZONE_NAMES } from "@/lib/formats/tz-names";
import { pathId } from "@/lib/frontend";
import { guarded, lookupChoices, stationGroupChoices, stationPageMetadata } from "@/lib/manage";
import type { SiteUser } from "@/lib/site/current-user";
import { formToken } from "@/lib/site/form-token";
import { managePaths } from "@/lib/site/manage-paths";
import { stationJsonById } from "@/lib/stations";
import {
  loadTelemetry, type RemoteItem, startWizard, TELEMETRY_TYPES, telemetryPage, telemetryType, wizardChoices, type WizardState,
} from "@/lib/telemetry";
import { fetchNow, saveAlerts, wizardCancel, wizardConnection, wizardSensors, wizardStation, wizardType } from "./actions";
import { wizardFromCookie } from "./wizard-cookie";

type Params = Promise<{ sid: string }>;
type Search = Promise<Record<string, string | string[] | undefined>>;

/** The page's words, in one place (to be translated). */
const TEXT = {
  title: "Telemetry",
  lead: "Where this station's data lives (a logger or its vendor's cloud), and when the service fetches it into the station's time series.",
  none: "This station has no telemetry yet: its data arrive only when someone uploads them.",
  setUp: "Set up telemetry",
  change: "Change the telemetry",
  delete: "Delete telemetry",
  steps: ["Type and schedule", "Connection", "Remote station", "Sensors"],
  step: (n: number, of: number, name: string) => `Step ${n} of ${of}: ${name}`,
  next: "Next",
  finish: "Save the telemetry",
  cancel: "Cancel",
  back: "Back",
  typeHelp: "The system the data are fetched from.",
  zoneHelp: "The time zone of the vendor's timestamps, like Europe/Athens or Etc/GMT-2. Types whose timestamps are in UTC ignore it.",
  intervalHelp: "How often to fetch, in minutes (10 to 1440): 60 fetches every hour, 1440 once a day.",
  offsetHelp: "Minutes after each slot starts (counted from midnight UTC): with an interval of 10 and an offset of 2, fetches run at :02, :12, :22…",
  passwordKept: "Leave empty to keep the saved one.",
  verifyTls: "Verify the TLS certificate",
  verifyTlsHelp: "Untick only for a logger with a self-signed certificate.",
  connectionTest: "Next connects to the vendor with these details: a refusal is shown here, and nothing is saved.",
  stationPrompt: "The remote station whose data this station receives.",
  ignore: "Ignore this sensor",
  newGroup: "A new time series group",
  newGroupDetails: "For a new group",
  noSensors: "The vendor lists no sensors for this station.",
  expired: "The setup has expired, or was started in another window. Start again from the first step.",
  vendorFailed: "The vendor could not be asked:",
  overview: "Configuration",
  schedule: "Schedule",
  nextFetch: "Next fetch",
  lastFetch: "Last fetch",
  status: "Status",
  sensors: "Sensors",
  fetchNow: "Fetch now",
  fetch: "Fetch now",
  fetchLead: "Fetches the new readings of every sensor now, whatever the schedule.",
  alerts: "Feed alerts",
  alertsLead: "E-mails when a sensor's series has had no new record for a while, or repeats the same value: one when it starts, one when it recovers.",
  staleHelp: "Minutes without a new record (at least 10); empty: not checked.",
  stuckHelp: "Identical values in a row (at least 3); empty: not checked.",
  emailsHelp: "One address per line; empty: the station's maintainers.",
  saveAlerts: "Save the alerts",
  log: "Log",
  logEmpty: "No fetch has been logged yet.",
  logLead: "Every fetch, one line per sensor: how many records it stored, or what the vendor said.",
} as const;

const STATUS_WORDS = { never: "not fetched yet", ok: "the last fetch went well", error: "the last fetch failed" } as const;

export function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return stationPageMetadata(TEXT.title, params);
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
  const token = formToken(user.sessionId);
  const stationName = data.station.name || `Station ${sid}`;
  const step = STEPS.find((s) => s === query.step) ?? null;
  const crumbs = [{ label: stationName, href: managePaths.station(sid) }, { label: TEXT.title, href: step ? `${managePaths.station(sid)}telemetry/` : undefined }];
  if (step) {
    return (
      <div className="page manage narrow-wide">
        <ManageHeader crumbs={crumbs} title={`${stationName}: ${TEXT.title}`} lead={TEXT.lead} />
        {/* A step of its own: each step's form starts from its own values, not the last step's answer. */}
        <Wizard key={step} sid={sid} step={step} token={token} user={user} />
      </div>
    );
  }
  const { telemetry, typeName, schedule, sensors, lastFetch, logCount, log } = data.overview;
  const base = `${managePaths.station(sid)}telemetry/`;
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={crumbs} title={`${stationName}: ${TEXT.title}`} lead={TEXT.lead}
        actions={<>
          <Link className="button" href={`${base}?step=type`}>{telemetry ? TEXT.change : TEXT.setUp}</Link>
          {telemetry && <Link className="button danger-link" href={`${base}delete/`}>{TEXT.delete}</Link>}
        </>} />
      <Done code={query.done} />
      {!telemetry ? <section className="card"><p>{TEXT.none}</p></section> : (
        <>
          <Section id="configuration" title={TEXT.overview}>
            <dl className="details">
              <div><dt>Type</dt><dd>{typeName}</dd></div>
              <div><dt>{TEXT.schedule}</dt><dd>{schedule}</dd></div>
              <div><dt>{TEXT.nextFetch}</dt><dd data-testid="next-fetch">{utc(telemetry.nextFetch)}</dd></div>
              <div><dt>{TEXT.lastFetch}</dt><dd>{utc(telemetry.lastFetch)}</dd></div>
              <div><dt>{TEXT.status}</dt><dd><span className={`badge telemetry-${telemetry.status}`}>{telemetry.status}</span> {STATUS_WORDS[telemetry.status]}</dd></div>
              {telemetry.remoteStationId && <div><dt>Remote station</dt><dd><code>{telemetry.remoteStationId}</code></dd></div>}
            </dl>
            <h3>{TEXT.sensors}</h3>
            {sensors.length === 0 ? <p className="muted">No sensor is mapped: nothing is fetched. Change the telemetry to map them.</p> : (
              <Table columns={["Sensor", "Time series group", "Feed"]}>
                {sensors.map((s) => (
                  <tr key={s.sensorId}>
                    <th scope="row"><code>{s.sensorId}</code></th>
                    <td data-label="Time series group"><Link href={managePaths.group(sid, s.groupId)}>{s.groupName || `Group ${s.groupId}`}</Link></td>
                    <td data-label="Feed">
                      {s.staleSince && <span className="badge feed-stale">stale since {utc(s.staleSince)}</span>}
                      {s.stuckSince && <span className="badge feed-stuck">stuck since {utc(s.stuckSince)}</span>}
                      {!s.staleSince && !s.stuckSince && <span className="muted">ok</span>}
                    </td>
                  </tr>
                ))}
              </Table>
            )}
          </Section>

          <Section id="fetch" title={TEXT.fetch}>
            <p className="muted">{TEXT.fetchLead}</p>
            <ManagedForm action={fetchNow.bind(null, sid)} initial={{}} token={token} submit={TEXT.fetchNow} label={TEXT.fetchNow} className="inline-form" />
            <TelemetryFetch api={`/api/stations/${sid}/telemetry/fetch/`} initial={lastFetch as FetchRun | null} />
          </Section>

          <Section id="alerts" title={TEXT.alerts}>
            <p className="muted">{TEXT.alertsLead}</p>
            <ManagedForm action={saveAlerts.bind(null, sid)} token={token} submit={TEXT.saveAlerts} label={TEXT.alerts}
              initial={{ stale_after_minutes: telemetry.staleAfterMinutes?.toString() ?? "", stuck_after_values: telemetry.stuckAfterValues?.toString() ?? "", alert_emails: telemetry.alertEmails.join("\n") }}>
              <div className="form-grid">
                <TextField name="stale_after_minutes" label="Stale after (minutes)" type="number" inputMode="numeric" help={TEXT.staleHelp} />
                <TextField name="stuck_after_values" label="Stuck after (values)" type="number" inputMode="numeric" help={TEXT.stuckHelp} />
              </div>
              <TextArea name="alert_emails" label="Addresses" rows={3} help={TEXT.emailsHelp} />
            </ManagedForm>
          </Section>

          <Section id="log" title={TEXT.log}>
            <p className="muted">{TEXT.logLead}</p>
            {log.length === 0 ? <p className="muted">{TEXT.logEmpty}</p> : (
              <Table columns={["When", "Sensor", "Records", "What happened"]}>
                {log.map((l) => (
                  <tr key={l.id} data-status={l.status}>
                    <td data-label="When" className="nowrap">{utc(new Date(l.finished))}</td>
                    <td data-label="Sensor">{l.sensor === null ? <span className="muted">the whole fetch</span> : <code>{l.sensor}</code>}</td>
                    <td data-label="Records">{l.records.toLocaleString("en-US")}</td>
                    <td data-label="What happened">{l.status === "ok" ? (l.message || "ok") : <span className="error-text">{l.message}</span>}</td>
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
function Steps({ step, listsStations }: { step: Step; listsStations: boolean }) {
  const shown = STEPS.filter((s) => listsStations || s !== "station");
  const index = shown.indexOf(step);
  return (
    <ol className="wizard-steps" aria-label="Steps">
      {shown.map((s, i) => (
        <li key={s} aria-current={s === step ? "step" : undefined} className={i < index ? "done" : s === step ? "current" : undefined}>{TEXT.steps[STEPS.indexOf(s)]}</li>
      ))}
    </ol>
  );
}

async function Wizard({ sid, step, token, user }: { sid: number; step: Step; token: string; user: SiteUser }) {
  const base = `${managePaths.station(sid)}telemetry/`;
  const saved = await loadTelemetry(sid);
  const state: WizardState | null = (await wizardFromCookie(sid)) ?? (step === "type" ? startWizard(sid, saved) : null);
  const cancel = (
    <ManagedForm action={wizardCancel.bind(null, sid)} initial={{}} token={token} submit={TEXT.cancel} label={TEXT.cancel} className="inline-form secondary-form" />
  );
  if (!state || (step !== "type" && !telemetryType(state.type))) {
    return (
      <section className="card">
        <p className="message error" role="alert">{TEXT.expired}</p>
        <p><Link className="button" href={`${base}?step=type`}>{TEXT.steps[0]}</Link></p>
      </section>
    );
  }
  const type = telemetryType(state.type);
  const listsStations = type?.listsStations ?? true;
  const shown = STEPS.filter((s) => listsStations || s !== "station");
  const heading = TEXT.step(shown.indexOf(step) + 1, shown.length, TEXT.steps[STEPS.indexOf(step)]);
  const previous = shown[shown.indexOf(step) - 1];
  const back = previous ? <Link href={`${base}?step=${previous}`}>{TEXT.back}</Link> : null;

  if (step === "type") {
    return (
      <Section id="wizard" title={heading}>
        <Steps step={step} listsStations={listsStations} />
        <ManagedForm action={wizardType.bind(null, sid)} token={token} submit={TEXT.next} label={heading}
          initial={{ type: state.type, data_timezone: state.data_timezone, fetch_interval_minutes: String(state.fetch_interval_minutes), fetch_offset_minutes: String(state.fetch_offset_minutes) }}>
          <SelectField name="type" label="Telemetry system type" required help={TEXT.typeHelp} empty="—" options={TELEMETRY_TYPES.map((t) => ({ value: t.id, label: t.name }))} />
          <SelectField name="data_timezone" label="Time zone of the timestamps" required help={TEXT.zoneHelp} options={IANA_ZONE_NAMES.map((z) => ({ value: z, label: z }))} />
          <div className="form-grid">
            <TextField name="fetch_interval_minutes" label="Fetch interval (minutes)" type="number" inputMode="numeric" required help={TEXT.intervalHelp} />
            <TextField name="fetch_offset_minutes" label="Fetch time offset (minutes)" type="number" inputMode="numeric" required help={TEXT.offsetHelp} />
          </div>
        </ManagedForm>
        {cancel}
      </Section>
    );
  }

  if (step === "connection") {
    // A password typed in this wizard, or the saved one (kept for the same type).
    const passwordStored = state.password === null ? saved !== null && saved.password !== "" && saved.type === state.type : state.password !== "";
    const fields = type!.fields;
    const initial: Record<string, string> = { device_locator: state.device_locator, username: state.username, verify_tls: String(state.verify_tls) };
    for (const key of Object.keys(type!.additionalConfig)) initial[`additional_config.${key}`] = String(state.additional_config[key] ?? "");
    return (
      <Section id="wizard" title={heading}>
        <Steps step={step} listsStations={listsStations} />
        <p className="muted">{type!.name}. {TEXT.connectionTest}</p>
        <ManagedForm action={wizardConnection.bind(null, sid)} token={token} submit={TEXT.next} label={heading} initial={initial}>
          <ErrorsFor name="connection" />
          {fields.device_locator && <TextField name="device_locator" label={fields.device_locator.label} help={fields.device_locator.help || undefined} required={fields.device_locator.required} />}
          {fields.username && <TextField name="username" label={fields.username.label} help={fields.username.help || undefined} required={fields.username.required} autoComplete="off" />}
          {fields.password && (
            <TextField name="password" label={fields.password.label} type="password" autoComplete="new-password" required={fields.password.required && !passwordStored}
              help={[fields.password.help, passwordStored ? TEXT.passwordKept : ""].filter(Boolean).join(" ") || undefined} />
          )}
          {Object.entries(type!.additionalConfig).map(([key, meta]) => (
            <TextField key={key} name={`additional_config.${key}`} label={meta.label} help={meta.help || undefined} required={meta.required} />
          ))}
          <ErrorsFor name="additional_config" />
          <CheckboxField name="verify_tls" label={TEXT.verifyTls} help={TEXT.verifyTlsHelp} />
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
        <p className="message error" role="alert">{TEXT.vendorFailed} {problem}</p>
        <p>{back}</p>
        {cancel}
      </Section>
    );
  }

  if (step === "station") {
    return (
      <Section id="wizard" title={heading}>
        <Steps step={step} listsStations={listsStations} />
        <ManagedForm action={wizardStation.bind(null, sid)} token={token} submit={TEXT.next} label={heading} initial={{ remote_station_id: state.remote_station_id }}>
          <SelectField name="remote_station_id" label={type!.fields.remote_station_id?.label ?? "Remote station"} required help={TEXT.stationPrompt} empty="—"
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
      {items.length === 0 && <p className="muted">{TEXT.noSensors}</p>}
      <ManagedForm action={wizardSensors.bind(null, sid)} token={token} submit={TEXT.finish} label={heading} initial={initial}>
        {/* What the saved configuration's rules refuse, in the API's words. */}
        {["sensors", "type", "device_locator", "username", "password", "remote_station_id", "additional_config"].map((name) => <ErrorsFor key={name} name={name} />)}
        {items.map((s) => {
          const label = type!.sensorPrompt.replace("{sensor_label}", s.name ? `"${s.name}" (${s.id})` : `"${s.id}"`);
          return (
            <fieldset key={s.id} className="field-group sensor-choice">
              <SelectField name={`sensor.${s.id}`} label={label} options={[{ value: "", label: type!.ignoreSensorPrompt }, ...groups, { value: "new", label: TEXT.newGroup }]} />
              <details>
                <summary>{TEXT.newGroupDetails}</summary>
                <div className="form-grid">
                  <TextField name={`new_name.${s.id}`} label="Name" placeholder={s.name || s.id} />
                  <SelectField name={`new_variable.${s.id}`} label="Variable" options={variables} empty="—" />
                  <SelectField name={`new_unit.${s.id}`} label="Unit of measurement" options={units} empty="—" />
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
