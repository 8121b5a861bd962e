// The client side of scripts/lab/failover-trial.sh: appends one record every 100 ms to a series
// of the service at BASE (logging in as USERNAME/PASSWORD, a superuser) for DURATION seconds,
// and runs the command FAILOVER (a shell command) after FAILOVER_AFTER seconds. Then it reads
// the series back and says whether every append the service acknowledged (204) is there, and how
// long, and how, the service answered while the primary was changing.
//   BASE=http://127.0.0.1:3999 USERNAME=admin PASSWORD=… FAILOVER='…' npx tsx scripts/lab/failover-writer.ts
import { execSync } from "node:child_process";

const base = process.env.BASE ?? "http://127.0.0.1:3999";
const duration = Number(process.env.DURATION ?? 60) * 1000;
const failoverAfter = Number(process.env.FAILOVER_AFTER ?? 15) * 1000;

async function call(method: string, path: string, token: string | null, body?: Record<string, unknown>, form?: Record<string, string>) {
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Token ${token}`;
  let payload: string | undefined;
  if (body) { headers["Content-Type"] = "application/json"; payload = JSON.stringify(body); }
  if (form) { headers["Content-Type"] = "application/x-www-form-urlencoded"; payload = new URLSearchParams(form).toString(); }
  const response = await fetch(base + path, { method, headers, body: payload, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  return { status: response.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

async function created(method: string, path: string, token: string, body: Record<string, unknown>) {
  const r = await call(method, path, token, body);
  if (r.status !== 201) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.json().id as number;
}

async function main() {
  const login = await call("POST", "/api/auth/login/", null, { username: process.env.USERNAME, password: process.env.PASSWORD });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${login.text}`);
  const token = login.json().key as string;
  const owner = await created("POST", "/api/organizations/", token, { name: "Failover trial" });
  const variable = await created("POST", "/api/variables/", token, { descr: "Stage" });
  const unit = await created("POST", "/api/units/", token, { descr: "metre", symbol: "m", variables: [variable] });
  const sid = await created("POST", "/api/stations/", token, { name: "Failover", geom: "POINT (21 39)", owner });
  const gid = await created("POST", `/api/stations/${sid}/timeseriesgroups/`, token, { name: "Stage", variable, unit_of_measurement: unit, precision: 2 });
  const tid = await created("POST", `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/`, token, { type: "Initial" });
  const data = `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/data/`;

  const acknowledged: string[] = [];
  const statuses = new Map<string, number>();
  let lastOkBefore = 0, firstOkAfter = 0, failedOverAt = 0, i = 0;
  const started = Date.now();
  while (Date.now() - started < duration) {
    if (!failedOverAt && Date.now() - started >= failoverAfter) {
      failedOverAt = Date.now();
      console.log(`${((failedOverAt - started) / 1000).toFixed(1)} s: failover: ${process.env.FAILOVER}`);
      if (process.env.FAILOVER) execSync(process.env.FAILOVER, { stdio: "inherit" });
    }
    const timestamp = new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString().slice(0, 16).replace("T", " ");
    const value = (i % 1000) / 100;
    i += 1;
    let status: string;
    try {
      const r = await call("POST", data, token, undefined, { timeseries_records: `${timestamp},${value.toFixed(2)},\n` });
      status = String(r.status);
      if (r.status === 204) {
        acknowledged.push(`${timestamp},${value.toFixed(2)},`);
        if (!failedOverAt) lastOkBefore = Date.now();
        else if (!firstOkAfter) firstOkAfter = Date.now();
      } else if (r.status >= 500) {
        if (!statuses.has(status)) console.log(`first ${r.status}: ${r.text.slice(0, 200)}`);
      }
    } catch (error) {
      status = `client error (${(error as Error).name})`;
    }
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    await new Promise((done) => setTimeout(done, 100));
  }
  const read = await call("GET", `${data}?fmt=csv`, token);
  const stored = new Set(read.text.split("\n").map((line) => line.trim()).filter(Boolean));
  const lost = acknowledged.filter((line) => !stored.has(line));
  console.log(`appends: ${i}; answers: ${JSON.stringify(Object.fromEntries(statuses))}`);
  console.log(`acknowledged: ${acknowledged.length}; stored: ${stored.size}; acknowledged but missing: ${lost.length}${lost.length ? ` (${lost.slice(0, 5).join(" | ")})` : ""}`);
  console.log(`writes refused from the last success before the failover to the first after it: ${((firstOkAfter - lastOkBefore) / 1000).toFixed(1)} s`);
  process.exitCode = lost.length === 0 && firstOkAfter > 0 ? 0 : 1;
}

main().catch((error) => { console.error(error); process.exitCode = 2; });
