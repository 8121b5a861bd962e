// npm run createuser -- --username U [--email E] [--password P] [--can-add-stations]
// npm run createsuperuser -- --username U [--email E] [--password P]
// Without --password the password is asked for (twice, not shown) on a terminal, or read from the
// first line of standard input otherwise. --help says more.
import { parseArgs } from "node:util";
import { closeDb } from "@/lib/db";
import { createUser, isValidEmail, PASSWORDS_DIFFER, USERNAME_MESSAGE, USERNAME_PATTERN, usernameProblem } from "@/lib/accounts";
import { passwordProblems } from "@/lib/auth/passwords";
import { settings } from "@/lib/config";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";

const superuser = process.argv.includes("--superuser");
const COMMAND = superuser ? "npm run createsuperuser --" : "npm run createuser --";
const USAGE = `usage: ${COMMAND} --username NAME [--email ADDRESS] [--password PASSWORD]${superuser ? "" : " [--can-add-stations]"}`;
const HELP = `Creates a ${superuser ? "superuser" : "user"} of the site and the API in the database of DATABASE_URL.

${USAGE}

  --username NAME       the login name: letters, digits and @ . + - _ (at most 150)
  --email ADDRESS       the e-mail address (password resets; logging in by e-mail)
  --password PASSWORD   the password; without it, it is asked for twice, not shown, on a
                        terminal, or read from the first line of standard input. A password
                        on the command line is seen by other users of the machine (ps) and
                        kept in the shell's history: prefer the prompt.${superuser ? "" : `
  --can-add-stations    the user may create stations`}
  -h, --help            this help

The password has at least 8 characters, not all digits, and is not the username (the rules
of the API's password change).
Exit status: 0 created; 1 not created (the user exists, the database failed); 2 a bad
argument or a refused password.`;

/** A refusal the user can correct: the message, and exit status 2. */
class Refused extends Error {}

function parse() {
  try {
    return parseArgs({
      options: {
        username: { type: "string" },
        email: { type: "string", default: "" },
        password: { type: "string" },
        superuser: { type: "boolean", default: false },
        "can-add-stations": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    throw new Refused((e as Error).message);
  }
}

/** The problems of a password by the API's rules (lib/auth/passwords.ts), as one message. */
function passwordRefusal(password: string, username: string): string | null {
  const problems = passwordProblems(password, username);
  return problems.length ? problems.join(" ") : null;
}

/** One line typed on the terminal, not echoed; null at end of input (Ctrl-D on an empty line). */
function askHidden(prompt: string): Promise<string | null> {
  const { stdin, stderr } = process;
  // Raw (no echo) before the prompt shows: what is typed after it is never echoed.
  stdin.setRawMode(true);
  stderr.write(prompt);
  return new Promise((resolve) => {
    let typed = "";
    stdin.resume();
    stdin.setEncoding("utf8");
    const done = (value: string | null) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      stderr.write("\n");
      resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n") return done(typed);
        if (ch === "\u0003") {
          done(null);
          process.exit(130); // Ctrl-C
        }
        if (ch === "\u0004") {
          if (typed === "") return done(null);
        } else if (ch === "\u007f" || ch === "\b") {
          typed = [...typed].slice(0, -1).join("");
        } else if (ch >= " ") {
          typed += ch;
        }
      }
    };
    stdin.on("data", onData);
  });
}

/** The first line of standard input (not a terminal), without its line ending; null when there is none. */
async function firstLineOfStdin(): Promise<string | null> {
  let text = "";
  for await (const chunk of process.stdin) {
    text += chunk;
    if (text.includes("\n")) break;
  }
  process.stdin.pause();
  if (text === "") return null;
  return text.split("\n")[0].replace(/\r$/, "");
}

/** The password: asked for on a terminal (twice; again after a refusal, three tries), else read from standard input. */
async function readPassword(username: string): Promise<string> {
  if (!process.stdin.isTTY) {
    const line = await firstLineOfStdin();
    if (line === null) throw new Refused("No password given: use --password, type it at a terminal, or send it as the first line of standard input.");
    const refusal = passwordRefusal(line, username);
    if (refusal) throw new Refused(refusal);
    return line;
  }
  for (let attempt = 1; ; attempt++) {
    const first = await askHidden("Password: ");
    if (first === null) throw new Refused("No password given.");
    let problem = passwordRefusal(first, username);
    if (!problem) {
      const again = await askHidden("Password (again): ");
      if (again === null) throw new Refused("No password given.");
      if (again === first) return first;
      problem = PASSWORDS_DIFFER;
    }
    if (attempt === 3) throw new Refused(problem);
    process.stderr.write(`${problem} Try again.\n`);
  }
}

async function main(): Promise<void> {
  const values = parse();
  if (values.help) {
    console.log(HELP);
    return;
  }
  const username = values.username ?? "";
  if (username === "") throw new Refused("--username is required.");
  if (!USERNAME_PATTERN.test(username) || [...username].length > 150) throw new Refused(USERNAME_MESSAGE);
  if (values.email && !isValidEmail(values.email)) throw new Refused(`--email: ${values.email}: Enter a valid email address.`);
  if (values.password !== undefined) {
    const refusal = passwordRefusal(values.password, username);
    if (refusal) throw new Refused(refusal);
  }
  try {
    await migrate(parseDatabaseUrl(settings().databaseUrl));
    // Said before the password is asked for.
    const taken = await usernameProblem(username, 0);
    if (taken) {
      console.error(taken);
      process.exitCode = 1;
      return;
    }
    const password = values.password ?? (await readPassword(username));
    const id = await createUser({
      username, email: values.email, password,
      isSuperuser: values.superuser, canAddStations: values["can-add-stations"] || values.superuser,
    });
    console.log(`Created ${values.superuser ? "superuser" : "user"} "${username}" (id ${id}).`);
  } catch (e) {
    if (e instanceof Refused) throw e;
    const message = (e as Error).message;
    console.error(/Unique constraint|UNIQUE/i.test(message) ? `A user named "${username}" already exists.` : message);
    process.exitCode = 1;
  } finally {
    await closeDb();
  }
}

main().catch((e) => {
  if (e instanceof Refused) {
    console.error(`${e.message}\n${USAGE}\n(--help says more)`);
    process.exit(2);
  }
  console.error(e);
  process.exit(1);
});
