/** @type {import('next').NextConfig} */
const nextConfig = {
  // Paths end in "/" and the service answers a missing slash with 308 itself (api.md §1.1):
  // Next must neither add nor strip slashes, nor buffer request bodies in a proxy.
  trailingSlash: true,
  skipTrailingSlashRedirect: true,
  // Large data downloads are streamed; compressing them belongs to the reverse proxy.
  compress: false,
  poweredByHeader: false,
  reactStrictMode: true,
  serverExternalPackages: [
    "better-sqlite3", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "@prisma/client", "pg", "pg-copy-streams",
    "archiver", "nodemailer", "proj4",
  ],
  typescript: { ignoreBuildErrors: false },
};

module.exports = nextConfig;
