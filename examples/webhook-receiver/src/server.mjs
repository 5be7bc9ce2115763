// Receives octavo's job-finished webhooks, verifies their signature and downloads the outputs.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { Octavo, verifyWebhook, WebhookVerificationError } from "@octavo/client";
import express from "express";

// Comma-separated: during a rotation both the old and the new secret are accepted.
const secrets = (process.env.OCTAVO_WEBHOOK_SECRET ?? "")
  .split(",")
  .map((secret) => secret.trim())
  .filter((secret) => secret !== "");
if (secrets.length === 0) {
  console.error("Set OCTAVO_WEBHOOK_SECRET to the signing secret shown in the octavo dashboard.");
  process.exit(1);
}
const downloadDir = process.env.OCTAVO_DOWNLOAD_DIR ?? "./downloads";
// The API key is only needed to download outputs; without one the receiver just logs.
const octavo = process.env.OCTAVO_API_KEY ? new Octavo() : undefined;

const app = express();
app.disable("x-powered-by");

// The signature covers the exact bytes sent, so the body must stay raw until it is verified.
app.post("/webhooks/octavo", express.raw({ type: "application/json" }), async (req, res) => {
  let job;
  try {
    job = await verifyWebhook(req.body ?? "", req.get("SVC-Signature"), secrets);
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    console.warn(JSON.stringify({ event: "webhook.rejected", reason: error.reason }));
    res.status(400).json({ error: error.reason, message: error.message });
    return;
  }
  // Answer at once: octavo waits 10 s at most and retries a delivery that got no 2xx.
  res.status(204).end();
  const outputs = (job.outputs ?? []).map((output) => output.name);
  console.log(JSON.stringify({ event: "job.finished", id: job.id, status: job.status, outputs }));
  if (octavo && job.status === "done") {
    await downloadOutputs(octavo, job.id).catch((error) =>
      console.error(JSON.stringify({ event: "download.failed", id: job.id, message: error.message })),
    );
  }
});

/** Fetches the job again (fresh download links) and saves each output under <dir>/<job id>/. */
async function downloadOutputs(client, id) {
  const job = await client.jobs.get(id);
  const dir = join(downloadDir, id);
  await mkdir(dir, { recursive: true });
  for (const output of job.outputs ?? []) {
    const path = await output.download(dir);
    console.log(JSON.stringify({ event: "output.downloaded", id, path }));
  }
}

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? "127.0.0.1";
app.listen(port, host, (error) => {
  if (error) throw error;
  console.log(`octavo webhook receiver listening on http://${host}:${port}/webhooks/octavo`);
});
