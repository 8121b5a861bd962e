// The site's languages (public.md §3): next-intl without locale routing; the language of each
// request is chosen in lib/site/intl-request.ts.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- this file is CommonJS (module.exports)
const createNextIntlPlugin = require("next-intl/plugin");
const withNextIntl = createNextIntlPlugin("./lib/site/intl-request.ts");

/** The site URL's host: server.mjs trusts its origin for site forms, so Next's own check must too. */
function siteHosts() {
  try {
    return process.env.ENHYDRIS_SITE_URL ? [new URL(process.env.ENHYDRIS_SITE_URL.trim()).host] : [];
  } catch {
    return [];
  }
}

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Paths end in "/" and the service answers a missing slash with 308 itself (api.md §1.1):
  // Next must neither add nor strip slashes, nor buffer request bodies in a proxy.
  trailingSlash: true,
  skipTrailingSlashRedirect: true,
  // Large data downloads are streamed; compressing them belongs to the reverse proxy.
  compress: false,
  poweredByHeader: false,
  // A separate build directory (e.g. for parallel work in one checkout); the server and the
  // tests read the same variable.
  distDir: process.env.ENHYDRIS_DIST_DIR || ".next",
  reactStrictMode: true,
  serverExternalPackages: [
    "better-sqlite3", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "@prisma/client", "pg", "pg-copy-streams",
    "archiver", "nodemailer", "proj4",
    // One instance per process, shared with server.mjs (the metrics registry, the logger).
    "prom-client", "pino", "pino-pretty",
  ],
  experimental: {
    // Files and images of the management pages are posted to server actions (up to the default
    // ENHYDRIS_MAX_UPLOAD_SIZE; the pages refuse larger ones before sending them).
    serverActions: { allowedOrigins: siteHosts(), bodySizeLimit: "100mb" },
    // forbidden(): the 403 pages of management.md §1.
    authInterrupts: true,
  },
  // `npm run typecheck` is the type check; ENHYDRIS_BUILD_SKIP_TYPECHECK=1 skips the repeat in
  // `next build` (development only: CI builds with it).
  typescript: { ignoreBuildErrors: process.env.ENHYDRIS_BUILD_SKIP_TYPECHECK === "1" },
};

module.exports = withNextIntl(nextConfig);
