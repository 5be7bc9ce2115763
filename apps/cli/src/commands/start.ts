import { join } from "node:path";
import type { Config } from "@octavo/config";
import { startTracing, stopTracing } from "@octavo/telemetry";
import type { QueueRuntime } from "../runtime.js";
import { openQueueRuntime } from "../runtime.js";
import { resolveQueues, type Serving, serve } from "./serve.js";

const DEMO_EMAIL = "demo@octavo.local";

/** First start on an empty database: a demo account whose key is printed once, with a curl line that works. */
async function printDemoKey(runtime: QueueRuntime, address: string): Promise<void> {
  if (await runtime.accounts.hasAnyAccount()) {
    process.stdout.write(
      `octavo is running at ${address} (API reference: ${address}/docs, dashboard: ${address}/dashboard)\n`,
    );
    return;
  }
  const demo = await runtime.accounts.createAccount(DEMO_EMAIL, "free");
  const examples = join(process.cwd(), "examples");
  process.stdout.write(
    [
      "",
      `octavo is running at ${address} (API reference: ${address}/docs)`,
      "",
      `A demo account (${DEMO_EMAIL}, Free plan) was created. Its API key is shown this once:`,
      "",
      `  ${demo.apiKey}`,
      "",
      "Merge the two example PDFs:",
      "",
      `  curl -s -H "Authorization: Bearer ${demo.apiKey}" -F file=@${join(examples, "sample-a.pdf")} -F file=@${join(examples, "sample-b.pdf")} ${address}/v1/merge`,
      "",
      `Then read the job from the statusUrl it returns (with the same Authorization header) and download outputs[0].url.`,
      `More keys: npx octavo keys create ${demo.accountId}`,
      `Customers sign up and manage their keys in the dashboard: ${address}/dashboard/signup`,
      "",
    ].join("\n"),
  );
}

export async function runServer(
  config: Config,
  roles: { api: boolean; queues: string | undefined; workers: boolean },
): Promise<void> {
  const role = roles.api && roles.workers ? "start" : roles.api ? "api" : "worker";
  // Traces only when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set; the service is named by OTEL_SERVICE_NAME,
  // else by its role.
  await startTracing(role === "start" ? "octavo" : `octavo-${role}`);
  const runtime = await openQueueRuntime(config, role);
  let serving: Serving;
  try {
    serving = await serve(
      runtime,
      {
        api: roles.api,
        queues: roles.workers ? resolveQueues(roles.queues, config.workerConcurrency) : undefined,
      },
      // Consumers that stopped taking jobs do not come back: a worker process ends, so its supervisor
      // starts a fresh one. `octavo start` has no supervisor; it logs the error and stays up for its API.
      { onStuck: roles.api ? undefined : () => stop("stuck queue consumers", 1) },
    );
  } catch (error) {
    await runtime.close();
    throw error;
  }
  if (roles.api && roles.workers && serving.address) await printDemoKey(runtime, serving.address);

  let stopping = false;
  function stop(signal: string, exitCode = 0) {
    if (stopping) return;
    stopping = true;
    runtime.logger.info({ signal }, "shutting down: no new jobs, finishing the running ones");
    if (exitCode !== 0) {
      // Not asked to stop by a supervisor, which would kill it after its own grace period: a close that
      // hangs must not keep a broken process alive.
      const grace = (config.shutdownGraceSeconds + 15) * 1000;
      setTimeout(() => process.exit(exitCode), grace).unref();
    }
    serving
      .close()
      .then(() => runtime.close())
      .then(() => stopTracing())
      .then(
        () => process.exit(exitCode),
        (error: unknown) => {
          runtime.logger.error({ err: error }, "shutdown failed");
          process.exit(1);
        },
      );
  }
  // SIGHUP too: a closed terminal or a supervisor's hangup stops the service as cleanly as SIGTERM.
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => stop(signal));
}
