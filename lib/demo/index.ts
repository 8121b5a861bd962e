// The face of lib/demo: the demo data of a new installation (`npm run serve`, `npm run demo-data`).
// It registers no routes or jobs; the server's start-up and the script call it.

export { loadDemoData, loadDemoDataIfEmpty } from "./data";
