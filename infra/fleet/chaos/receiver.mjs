// The chaos run's webhook receiver, on the compose network (webhook-receiver:8099). It prints every
// delivery as a JSON line: when it came, its SVC-Webhook-Id and signature headers, the raw body, and
// what it answered. The
// run verifies the signatures (it holds the accounts' secrets; the receiver holds none).
//
// How it answers is set on its control port (8098, published on loopback only):
//   POST /mode {"mode": "ok"}    204 at once
//   POST /mode {"mode": "error"} 500 at once, as a broken endpoint does
//   POST /mode {"mode": "slow"}  204 after 10 s, longer than octavo waits for an answer
//   POST /mode {"mode": "down"}  not listening: connections are refused, as by a host whose server is down
// (Stopping the container instead would also take its name out of Docker's DNS, which no customer's
// outage does.)
import { createServer } from "node:http";

let mode = "ok";
const SLOW_MS = 10_000;

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const deliveries = createServer(async (req, res) => {
  const body = await readBody(req);
  const answered = mode === "error" ? 500 : 204;
  const at = new Date().toISOString();
  const record = () =>
    process.stdout.write(
      `${JSON.stringify({ msg: "delivery", at, mode, answered, webhookId: req.headers["svc-webhook-id"], signature: req.headers["svc-signature"], body })}\n`,
    );
  if (mode === "slow") {
    setTimeout(() => {
      record();
      res.writeHead(answered).end();
    }, SLOW_MS);
    return;
  }
  record();
  res.writeHead(answered).end();
}).listen(8099);

createServer(async (req, res) => {
  if (req.method === "POST" && req.url === "/mode") {
    const next = JSON.parse(await readBody(req)).mode;
    if (!["ok", "error", "slow", "down"].includes(next)) return res.writeHead(400).end();
    if (next === "down") deliveries.close();
    else if (mode === "down") deliveries.listen(8099);
    mode = next;
    process.stdout.write(`${JSON.stringify({ msg: "mode", at: new Date().toISOString(), mode })}\n`);
    return res.writeHead(204).end();
  }
  res.writeHead(404).end();
}).listen(8098);
