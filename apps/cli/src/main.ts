import { parseArgs } from "node:util";
import { ConfigError, loadConfig, unknownSettings } from "@octavo/config";
import { isWorkerClass, queuesOfClass, workerClasses } from "@octavo/contracts";
import { AccountError } from "@octavo/core";
import { createDatabase, migrateToLatest } from "@octavo/db";
import { accountsCommand } from "./commands/accounts.js";
import { doctorCommand } from "./commands/doctor.js";
import { keysCommand } from "./commands/keys.js";
import { runServer } from "./commands/start.js";
import { printJson, UsageError } from "./output.js";
import { openRuntime } from "./runtime.js";

const HELP = `octavo: the PDF-processing API

  octavo start                         API, workers and the janitor in one process tree (npm start)
  octavo api                           the API only
  octavo worker [--queues q1,q2]       workers for the given queues, e.g. merge,split or webhooks (default: all)
  octavo worker --class C              workers for a worker class's queues: ${workerClasses.join(", ")}
  octavo migrate                       apply database migrations
  octavo accounts create --email E --plan free|starter|pro|business
  octavo accounts show ID
  octavo accounts set-plan ID PLAN
  octavo accounts adjust-credits ID AMOUNT --reason TEXT
  octavo accounts rotate-webhook-secret ID   new secret; the old one also signs for 24 h
  octavo keys create ACCOUNT_ID [--label L] [--test]
                                       --test: a test-mode key (svc_test_): its jobs are free, stamped
                                       "octavo test mode", 10 pages an input, 20 a minute
  octavo keys list ACCOUNT_ID
  octavo keys revoke KEY_ID
  octavo doctor [--queues q1,q2|--class C|--api]
                                       engines and tools: found or missing, with versions, and which are
                                       required: with --queues or --class (as for worker) those queues' engines,
                                       with --api none, without either everything \`octavo start\` runs;
                                       exit 1 when a required one is missing

Settings come from OCTAVO_* environment variables (see README).`;

/** `--class heavy` is the class's `--queues` list, its counts from the catalogue: one way to name queues. */
function queuesOption(queues: string | undefined, workerClass: string | undefined): string | undefined {
  if (workerClass === undefined) return queues;
  if (queues !== undefined) throw new UsageError("give --queues or --class, not both");
  if (!isWorkerClass(workerClass))
    throw new UsageError(
      `unknown worker class "${workerClass}"; the classes are ${workerClasses.join(", ")}`,
    );
  return queuesOfClass(workerClass)
    .map(({ name, concurrency }) => (concurrency === undefined ? name : `${name}=${concurrency}`))
    .join(",");
}

/** parseArgs would read "-20" (a negative credit correction) as a flag; shield such numbers. */
const NEGATIVE = "\u0000negative:";

async function main(argv: string[]): Promise<number> {
  const parsed = parseArgs({
    args: argv.map((arg) => (/^-\d+$/.test(arg) ? `${NEGATIVE}${arg}` : arg)),
    allowPositionals: true,
    options: {
      email: { type: "string" },
      plan: { type: "string" },
      reason: { type: "string" },
      label: { type: "string" },
      queues: { type: "string" },
      class: { type: "string" },
      api: { type: "boolean" },
      test: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const { values } = parsed;
  const [command, ...args] = parsed.positionals.map((arg) =>
    arg.startsWith(NEGATIVE) ? arg.slice(NEGATIVE.length) : arg,
  );
  if (values.help || command === undefined || command === "help") {
    process.stderr.write(`${HELP}\n`);
    return command === undefined && !values.help ? 2 : 0;
  }
  const typos = unknownSettings();
  if (typos.length > 0)
    throw new ConfigError(typos[0] ?? "", "is not an octavo setting; check its spelling (see README)");
  if (values.api && command !== "doctor") throw new UsageError("--api is an option of octavo doctor");
  if (values.test && !(command === "keys" && args[0] === "create"))
    throw new UsageError("--test is an option of octavo keys create");
  const queues = queuesOption(values.queues, values.class);
  // Before the settings: doctor must answer on a node with none (an image's read-only /app, no
  // OCTAVO_SECRET_KEY), where loadConfig would try to create ./data/secret.key.
  if (command === "doctor") return (await doctorCommand({ queues, api: values.api })) ? 0 : 1;
  const config = loadConfig();
  const flags = {
    email: values.email,
    plan: values.plan,
    reason: values.reason,
    label: values.label,
    ...(values.test ? { test: "true" } : {}),
  };

  switch (command) {
    case "start":
      await runServer(config, { api: true, workers: true, queues });
      return -1; // keeps running until a signal
    case "api":
      await runServer(config, { api: true, workers: false, queues: undefined });
      return -1;
    case "worker":
      await runServer(config, { api: false, workers: true, queues });
      return -1;
    case "migrate": {
      const database = createDatabase(config.databaseUrl);
      try {
        printJson({ applied: await migrateToLatest(database) });
      } finally {
        await database.close();
      }
      return 0;
    }
    case "accounts":
    case "keys": {
      const runtime = await openRuntime(config, "cli");
      try {
        await (command === "accounts"
          ? accountsCommand(runtime, args, flags)
          : keysCommand(runtime, args, flags));
      } finally {
        await runtime.close();
      }
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"; run octavo --help`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    const known =
      error instanceof UsageError || error instanceof ConfigError || error instanceof AccountError;
    process.stderr.write(
      `octavo: ${error instanceof Error && known ? error.message : String(error instanceof Error ? error.stack : error)}\n`,
    );
    // Exit now rather than when the event loop empties: a server whose start failed part way may hold
    // queue consumers and connections that would keep it alive, half started, where its supervisor
    // (Docker, Kubernetes, systemd) can neither see the failure nor start it again.
    process.exit(known && !(error instanceof AccountError) ? 2 : 1);
  },
);
