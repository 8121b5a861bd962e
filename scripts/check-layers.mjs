// The layer check of `npm run lint` (docs/decisions/0020-layers.md). Fails, naming file and line:
//   - a kernel folder of lib/ that imports a capability or a transport;
//   - a capability that imports a transport (lib/api, lib/server, lib/capabilities, app/, …);
//   - an import of a capability from outside it past its face (lib/<capability>/index.ts, or
//     lib/<capability>/client.ts for browser components), and a browser component's runtime
//     import of a capability's server face;
//   - a page or component (app/, components/) that imports the database or the records store;
//   - a transport that could query the database itself: one that imports the database handle,
//     the records store's handle, a driver or a Prisma client (the benchmark tools excepted);
//   - a cycle between top-level folders (runtime imports only; `import type` is erased).
//   node scripts/check-layers.mjs [root]
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The kernel: folders of lib/ that import nothing above them. */
export const KERNEL = new Set([
  "runtime", "config", "observability", "domain", "db", "formats", "geo", "records", "jobs", "http", "routing", "auth", "mail",
  "site", "outbound", "i18n",
]);
/** Transports inside lib/: they may use every capability (through its face). */
export const LIB_TRANSPORTS = new Set(["api", "server", "capabilities"]);
/** Transports outside lib/ (folders or files at the root). */
const ROOT_UNITS = ["app", "components", "scripts"];
const ROOT_FILES = ["server.mjs", "server.ts", "instrumentation.ts", "proxy.ts"];
/** What pages and components may not touch: they call capabilities. */
const NO_DATABASE = new Set(["db", "records"]);
/**
 * What no transport may import, as it would query the database itself: the handle and SQL of
 * lib/db's face, the records store's handle, the drivers and Prisma's clients. A transport may
 * use the rest of the kernel's database API: its state (lib/db/status.ts), migrations, backups,
 * closing the handle at exit.
 */
const QUERY_ACCESS = [
  { module: "lib/db", names: ["db", "Prisma", "*"], what: "the database handle (db, Prisma)" },
  { module: "lib/records", names: ["records", "*"], what: "the records store (records)" },
];
const DRIVERS = /^(pg|pg-copy-streams|better-sqlite3|@prisma\/client|@prisma\/adapter-[a-z0-9-]+)(\/|$)|^@\/lib\/db\/generated\//;
/** The benchmark and profiling tools: they measure the kernel itself (the records store, the pool) and seed data in bulk. */
const MEASUREMENT_TOOLS = /^scripts\/(bench[^/]*|profile[^/]*|load|support)\.[a-z]+$|^scripts\/lab\//;

const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;
const SKIP = new Set(["node_modules", ".next", "generated", ".scratch"]);

function walk(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (SKIP.has(name) || name.startsWith(".next")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (SOURCE.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** The imports of a file: specifier, line, and whether it is erased (type-only). */
export function importsOf(path, text) {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found = [];
  // names: the bindings a runtime import takes ("*" for a whole module: a namespace, a dynamic
  // import, `export *`; "default"; none for a side-effect import).
  const add = (node, specifier, typeOnly, names) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push({ specifier, line: line + 1, typeOnly, names: typeOnly ? [] : names });
  };
  const valueNames = (elements) => elements.filter((e) => !e.isTypeOnly).map((e) => (e.propertyName ?? e.name).text);
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : null;
      const typeOnly = !!clause && (clause.isTypeOnly || (!clause.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
      const names = [...(clause?.name ? ["default"] : []), ...(named ? valueNames(named) : clause?.namedBindings ? ["*"] : [])];
      add(node, node.moduleSpecifier.text, typeOnly, names);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : null;
      add(node, node.moduleSpecifier.text, node.isTypeOnly || (!!named && named.length > 0 && named.every((e) => e.isTypeOnly)), named ? valueNames(named) : ["*"]);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      add(node, node.arguments[0].text, false, ["*"]);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node, node.argument.literal.text, true, []);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** lib/<folder>/… → folder; a root unit; or null for files outside the checked tree. */
function unitOf(rel) {
  const parts = rel.split("/");
  if (parts[0] === "lib") return parts.length > 2 ? `lib/${parts[1]}` : `lib/${parts[1].replace(/\.[^.]+$/, "")}`;
  // Pages and their components are one transport (components call the pages' server actions).
  if (parts[0] === "app" || parts[0] === "components") return "app+components";
  if (ROOT_UNITS.includes(parts[0])) return parts[0];
  if (parts.length === 1 && ROOT_FILES.includes(parts[0])) return parts[0];
  return null;
}

function kindOf(unit) {
  if (!unit.startsWith("lib/")) return "transport";
  const folder = unit.slice(4);
  if (KERNEL.has(folder)) return "kernel";
  if (LIB_TRANSPORTS.has(folder)) return "transport";
  return "capability";
}

/** The repository-relative path an import names, or null for a package. */
function target(root, fromRel, specifier) {
  if (specifier.startsWith("@/")) return specifier.slice(2);
  if (specifier.startsWith(".")) return relative(root, resolve(root, dirname(fromRel), specifier));
  return null;
}

/** Strongly connected components with more than one member (Tarjan). */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const out = [];
  const strong = (v) => {
    state.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!state.has(w)) {
        strong(w);
        state.get(v).low = Math.min(state.get(v).low, state.get(w).low);
      } else if (state.get(w).onStack) {
        state.get(v).low = Math.min(state.get(v).low, state.get(w).index);
      }
    }
    if (state.get(v).low === state.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        state.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!state.has(v)) strong(v);
  return out;
}

/** Checks the tree under `root`; returns the problems found (empty: the layers hold). */
export function checkLayers(root) {
  const files = [...walk(join(root, "lib"), []), ...ROOT_UNITS.flatMap((u) => walk(join(root, u), [])),
    ...ROOT_FILES.map((f) => join(root, f)).filter((f) => { try { return statSync(f).isFile(); } catch { return false; } })];
  const problems = [];
  const graph = new Map();
  const edgeWhere = new Map();
  for (const path of files) {
    const rel = relative(root, path).split("\\").join("/");
    const from = unitOf(rel);
    if (!from) continue;
    const text = readFileSync(path, "utf8");
    const client = /^\s*["']use client["']/.test(text);
    const fromKind = kindOf(from);
    if (!graph.has(from)) graph.set(from, new Set());
    // Pages and components have the stricter rule below (no import of lib/db or lib/records at all).
    const queries = fromKind === "transport" && from !== "app+components" && !MEASUREMENT_TOOLS.test(rel);
    for (const { specifier, line, typeOnly, names } of importsOf(rel, text)) {
      const to = target(root, rel, specifier);
      if (queries && !typeOnly) {
        const targetModule = to?.replace(/\.(ts|tsx|mjs|js)$/, "").replace(/\/index$/, "");
        const access = QUERY_ACCESS.find((a) => a.module === targetModule && names.some((n) => a.names.includes(n)));
        const what = access?.what ?? (DRIVERS.test(specifier) || (to && DRIVERS.test(`@/${to}`)) ? "a database driver or client" : null);
        if (what) problems.push(`${rel}:${line}: a transport (${from}) imports ${what} from ${specifier}; it calls capabilities, never the database directly`);
      }
      if (to === null) continue;
      const toUnit = unitOf(to);
      if (!toUnit || toUnit === from) continue;
      const toKind = kindOf(toUnit);
      const where = `${rel}:${line}`;
      if (fromKind === "kernel" && toKind !== "kernel") problems.push(`${where}: the kernel (${from}) imports ${toKind === "capability" ? "a capability" : "a transport"} (${specifier})`);
      if (fromKind === "capability" && toKind === "transport") problems.push(`${where}: a capability (${from}) imports a transport (${specifier})`);
      if (toKind === "capability") {
        const inside = to.split("/").slice(2).join("/").replace(/\.(ts|tsx|mjs|js)$/, "");
        if (inside !== "" && inside !== "index" && inside !== "client") {
          problems.push(`${where}: imports ${specifier} past the face of ${toUnit} (import from "@/${toUnit}"${client ? ` or "@/${toUnit}/client"` : ""})`);
        } else if (client && !typeOnly && inside !== "client") {
          problems.push(`${where}: a browser component imports the server face of ${toUnit} (use "@/${toUnit}/client")`);
        }
      }
      if (from === "app+components" && NO_DATABASE.has(toUnit.slice(4))) {
        problems.push(`${where}: a page or component imports ${specifier}; it calls capabilities, never the database`);
      }
      if (!typeOnly) {
        graph.get(from).add(toUnit);
        if (!edgeWhere.has(`${from} ${toUnit}`)) edgeWhere.set(`${from} ${toUnit}`, where);
      }
    }
  }
  for (const component of cycles(graph)) {
    const inside = new Set(component);
    const edges = component.flatMap((a) => [...(graph.get(a) ?? [])].filter((b) => inside.has(b)).map((b) => `${a} → ${b} (${edgeWhere.get(`${a} ${b}`)})`));
    problems.push(`a cycle between folders: ${component.join(", ")}\n    ${edges.join("\n    ")}`);
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), ".."));
  const problems = checkLayers(root);
  if (problems.length) {
    console.error(`The layers do not hold (docs/decisions/0020-layers.md):\n${problems.map((p) => `  ${p}`).join("\n")}`);
    process.exit(1);
  }
  console.log("Layers: kernel ← capabilities ← transports, no cycles between folders.");
}
