// Builds the server (lib/server/main.ts) and its job process (lib/server/jobs-main.ts) into
// <distDir>/enhydris/main.mjs and jobs.mjs with esbuild, and beside them the browser scripts the
// server serves by name (records-worker.js: lib/server/page-scripts.ts): lib/ is bundled, packages stay imports
// of node_modules. `npm run build` runs it after `next build`; `node server.mjs --dev` builds into
// node_modules/.cache/enhydris/ at each start.
//   node scripts/build-server.mjs [outdir]
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Where `npm run build` puts the server (server.mjs loads it from there). */
export function serverBuildDir() {
  return join(ROOT, process.env.ENHYDRIS_DIST_DIR || ".next", "enhydris");
}

/**
 * Node resolves a package's subpath ("next/navigation") in an ES module only through the
 * package's "exports"; for a package without them the file's extension is added, as a bundler
 * (and Node's require) would find it.
 */
const subpathsWithExtensions = {
  name: "subpaths-with-extensions",
  setup(b) {
    const packages = new Map();
    const hasExports = (name) => {
      if (!packages.has(name)) {
        const file = join(ROOT, "node_modules", name, "package.json");
        packages.set(name, existsSync(file) && JSON.parse(readFileSync(file, "utf8")).exports !== undefined);
      }
      return packages.get(name);
    };
    b.onResolve({ filter: /^(@[^/]+\/)?[^./@][^/]*\/[^.]+$/ }, (args) => {
      const name = args.path.split("/").slice(0, args.path.startsWith("@") ? 2 : 1).join("/");
      if (hasExports(name)) return { path: args.path, external: true };
      return { path: existsSync(join(ROOT, "node_modules", `${args.path}.js`)) ? `${args.path}.js` : args.path, external: true };
    });
  },
};

/** Builds both bundles into `outdir`. */
export async function buildServer(outdir = serverBuildDir()) {
  await build({
    absWorkingDir: ROOT,
    entryPoints: { main: "lib/server/main.ts", jobs: "lib/server/jobs-main.ts" },
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    plugins: [subpathsWithExtensions],
    sourcemap: "linked",
    logLevel: "warning",
    // CommonJS code bundled into an ES module (the generated Prisma clients' helpers) may call require().
    banner: { js: 'import { createRequire as __enhydrisRequire } from "node:module"; const require = __enhydrisRequire(import.meta.url);' },
  });
  // The pages' scripts that the server serves by name (lib/server/page-scripts.ts).
  await build({
    absWorkingDir: ROOT,
    entryPoints: { "records-worker": "components/manage/records-worker.ts" },
    outdir,
    bundle: true,
    platform: "browser",
    format: "iife",
    target: "es2020",
    minify: true,
    logLevel: "warning",
  });
  return outdir;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outdir = await buildServer(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.log(`server built into ${outdir}`);
}
