// Page-paint lab: a SQLite database like the bench's (10,000 stations, one series of 1,051,200
// records) at /tmp/page2-lab/lab.db, and a one-worker server on it, kept running (its URL in
// /tmp/page2-lab/url$LAB_DIST.txt, the group page's path in page.txt). LAB_DIST=.next-x serves another build.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { closeDb } from "@/lib/db";
import { prepareDatabase, startServer } from "../support";
import { recordsBody } from "../upload-body";

const DIR = "/tmp/page2-lab";
const DB = `file:${DIR}/lab.db`;
const RECORDS = 1_051_200;
const START = Date.UTC(2005, 0, 1) / 1000;

async function main() {
  mkdirSync(DIR, { recursive: true });
  const fresh = !existsSync(`${DIR}/lab.db`);
  let token = "";
  if (fresh) {
    token = await prepareDatabase(DB, "lab");
    await closeDb();
  }
  const { url, child } = await startServer(DB, DIR, { ENHYDRIS_WORKERS: "1", ...(process.env.LAB_DIST ? { ENHYDRIS_DIST_DIR: process.env.LAB_DIST } : {}) });
  if (fresh) {
    const auth = { Authorization: `Token ${token}` };
    const created = await (await fetch(`${url}/api/stations/1/timeseries/`, {
      method: "POST", headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ precision: 1, variable: 1, unit_of_measurement: 1, time_step: "10min", name: "Bench" }),
    })).json();
    const r = await fetch(`${url}/api/stations/1/timeseries/${created.id}/data/`, {
      method: "POST", headers: { ...auth, "Content-Type": "application/x-www-form-urlencoded" }, body: recordsBody(RECORDS, START) as unknown as BodyInit,
    });
    writeFileSync(`${DIR}/page.txt`, `/stations/1/timeseriesgroups/${created.timeseries_group}/?series=${created.id}\n`);
    console.error("upload", r.status);
  }
  writeFileSync(`${DIR}/url${process.env.LAB_DIST ?? ""}.txt`, url + "\n");
  console.error("serving", url, child.pid);
}
main();
