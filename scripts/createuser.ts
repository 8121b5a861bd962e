// npm run createuser -- --username U --email E --password P [--can-add-stations]
// npm run createsuperuser -- --username U --email E --password P
import { parseArgs } from "node:util";
import { closeDb } from "@/lib/db";
import { settings } from "@/lib/config";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { createUser } from "@/lib/accounts";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      username: { type: "string" },
      email: { type: "string", default: "" },
      password: { type: "string" },
      superuser: { type: "boolean", default: false },
      "can-add-stations": { type: "boolean", default: false },
    },
  });
  if (!values.username || !values.password) {
    console.error("usage: npm run createuser -- --username U --email E --password P [--can-add-stations]");
    process.exit(2);
  }
  try {
    await migrate(parseDatabaseUrl(settings().databaseUrl));
    const id = await createUser({
      username: values.username, email: values.email, password: values.password,
      isSuperuser: values.superuser, canAddStations: values["can-add-stations"] || values.superuser,
    });
    console.log(`Created ${values.superuser ? "superuser" : "user"} "${values.username}" (id ${id}).`);
  } catch (e) {
    const message = (e as Error).message;
    console.error(/Unique constraint|UNIQUE/i.test(message) ? `A user named "${values.username}" already exists.` : message);
    process.exitCode = 1;
  } finally {
    await closeDb();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
