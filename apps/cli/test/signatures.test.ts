import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { corpusPath, createTempDir, runTool } from "@octavo/testing";
import { makeRoot, makeSigner, type TestRoot } from "@octavo/testing/signers";
import { startTsa, type TestTsa } from "@octavo/testing/tsa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type JobBody } from "./support/client.js";
import { OpenApiDocument } from "./support/openapi-document.js";
import type { Schema } from "./support/schema-values.js";
import { type LocalServer, startLocalServer } from "./support/servers.js";
import { cliAccount, startServiceProcess } from "./support/service.js";
import { type Stack, startStack } from "./support/stack.js";

/*
 * Sign PDF and Verify signatures through the real API and workers: the certificate and the roots as named
 * uploads, the password kept out of every row, log and answer, pdfsig's verdict on what we sign, the report
 * against the served OpenAPI document, and each refusal with what to fix. The engines' finer behaviour
 * (PAdES attributes, DocMDP, revisions, tampering) is tested in packages/sign.
 */

const sample = corpusPath("general/samplefiles_pdflatex-outline.pdf");
const password = "correct horse battery staple";

let scratch: Awaited<ReturnType<typeof createTempDir>>;
let root: TestRoot;
let p12: string;
let tsa: TestTsa;
let site: LocalServer;
let stack: Stack;
let client: Client;
let openApi: OpenApiDocument;

beforeAll(async () => {
  scratch = await createTempDir("octavo-signatures-");
  root = await makeRoot(scratch.path);
  p12 = await makeSigner(
    scratch.path,
    root,
    { subject: "CN=Alice Approver,O=octavo tests" },
    { password, file: "alice.p12" },
  );
  tsa = await startTsa(scratch.path, root);
  // Serves the files of `scratch` by name (URL inputs), and takes webhooks.
  site = await startLocalServer((req, res) => {
    if (req.method === "POST") return void res.writeHead(204).end();
    readFile(join(scratch.path, (req.url ?? "/").slice(1)))
      .then((bytes) => res.writeHead(200, { "content-type": "application/pdf" }).end(bytes))
      .catch(() => res.writeHead(404).end());
  });
  stack = await startStack({
    database: "sqlite",
    redis: "supervised",
    env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${tsa.port},127.0.0.1:${site.port}` },
  });
  client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
  openApi = new OpenApiDocument((await (await fetch(`${stack.baseUrl}/v1/openapi.json`)).json()) as Schema);
});

afterAll(async () => {
  await stack?.close();
  await site?.close();
  await tsa?.close();
  await scratch?.dispose();
});

type Upload = { path: string; name?: string; field?: string };

async function runJob(path: string, files: Upload[], options?: unknown, extra: Record<string, string> = {}) {
  const created = await client.postFiles(path, files, options, extra);
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  return client.waitForJob(String(created.body.id), 120_000);
}

async function downloadFirst(job: JobBody, name: string): Promise<string> {
  expect(job.status, JSON.stringify(job)).toBe("done");
  const download = await client.download(job.outputs?.[0]?.url ?? "");
  expect(download.status).toBe(200);
  const path = join(scratch.path, name);
  await writeFile(path, download.bytes);
  return path;
}

const certificate = (path = p12): Upload => ({ path, field: "certificate" });

async function pdfsig(path: string): Promise<string> {
  return (await runTool("pdfsig", [path])).stdout;
}

describe("POST /v1/sign", () => {
  it("signs in an incremental update that pdfsig calls valid, and never shows the password", async () => {
    const webhookUrl = `${site.url}/hook`;
    const job = await runJob(
      "/v1/sign",
      [{ path: sample }, certificate()],
      {
        certificatePassword: password,
        reason: "Approved",
        location: "Basel",
        appearance: { page: 1, position: "bottom-right" },
      },
      { webhook_url: webhookUrl },
    );
    const signed = await downloadFirst(job, "signed.pdf");
    expect(job.outputs?.[0]).toMatchObject({
      name: "samplefiles_pdflatex-outline.pdf",
      contentType: "application/pdf",
    });
    const original = await readFile(sample);
    const output = await readFile(signed);
    expect(output.subarray(0, original.length).equals(original)).toBe(true);
    const verdict = await pdfsig(signed);
    expect(verdict).toContain("Signature Validation: Signature is Valid.");
    expect(verdict).toContain("Signature Type: ETSI.CAdES.detached");
    expect(verdict).toContain("Signer Certificate Common Name: Alice Approver");

    expect(JSON.stringify(await client.get(`/v1/jobs/${job.id}`))).not.toContain(password);
    const hook = site.requests.find((request) => request.url === "/hook" && request.body.includes(job.id));
    expect(hook?.body).toBeDefined();
    expect(hook?.body).not.toContain(password);
  });

  it("adds a PAdES B-T time-stamp from the server options.timestampUrl names", async () => {
    const job = await runJob("/v1/sign", [{ path: sample }, certificate()], {
      certificatePassword: password,
      timestampUrl: tsa.url,
    });
    const signed = await downloadFirst(job, "stamped.pdf");
    const verified = await runJob("/v1/verify-signatures", [
      { path: signed },
      { path: root.pemPath, field: "roots" },
    ]);
    expect(verified.verification?.signatures[0]).toMatchObject({
      timestamp: { present: true, valid: true },
      valid: true,
    });
    expect(tsa.requests).toBeGreaterThan(0);
  });

  it("refuses what it cannot sign with, saying what to fix", async () => {
    const missing = await client.postFiles("/v1/sign", [{ path: sample }], { certificatePassword: password });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: "invalid_input" });
    expect(String(missing.body.message)).toContain('"certificate"');

    const wrongType = await client.postFiles("/v1/sign", [{ path: sample }, certificate(root.pemPath)], {
      certificatePassword: password,
    });
    expect(wrongType.status).toBe(400);
    expect(String(wrongType.body.detail)).toContain(".p12 .pfx");

    const wrongField = await client.postFiles("/v1/sign", [{ path: sample }, { path: p12, field: "cert" }], {
      certificatePassword: password,
    });
    expect(wrongField.status).toBe(400);
    expect(wrongField.body).toMatchObject({ error: "invalid_request" });
    expect(String(wrongField.body.message)).toContain('"certificate"');

    const noPassword = await client.postFiles("/v1/sign", [{ path: sample }, certificate()], {});
    expect(noPassword.status).toBe(400);
    expect(noPassword.body).toMatchObject({ error: "invalid_options" });
    expect(String(noPassword.body.detail)).toContain("certificatePassword");

    const json = await client.postJson("/v1/sign", {
      url: `${site.url}/x.pdf`,
      options: { certificatePassword: password },
    });
    expect(json.status).toBe(400);
    expect(String(json.body.detail)).toContain("multipart/form-data");

    const blocked = await client.postFiles("/v1/sign", [{ path: sample }, certificate()], {
      certificatePassword: password,
      timestampUrl: "http://10.1.2.3/tsa",
    });
    expect(blocked.status).toBe(400);
    expect(blocked.body).toMatchObject({ error: "blocked_url" });
    expect(String(blocked.body.detail)).toContain("options.timestampUrl");

    const pipeline = await client.postFiles("/v1/pipeline", [{ path: sample }], undefined, {
      steps: JSON.stringify([
        { operation: "compress" },
        { operation: "sign", options: { certificatePassword: password } },
      ]),
    });
    expect(pipeline.status).toBe(400);
    expect(String(pipeline.body.detail)).toContain("POST /v1/sign");

    const wrongPassword = await runJob("/v1/sign", [{ path: sample }, certificate()], {
      certificatePassword: "wrong",
    });
    expect(wrongPassword).toMatchObject({ status: "failed", error: "invalid_input" });
    expect(wrongPassword.message).toMatch(/password/i);
  });
});

describe("POST /v1/verify-signatures", () => {
  it("reports a signature intact and trusted through an uploaded root, in the job and as report.json", async () => {
    const signed = await downloadFirst(
      await runJob("/v1/sign", [{ path: sample }, certificate()], { certificatePassword: password }),
      "to-verify.pdf",
    );
    const job = await runJob("/v1/verify-signatures", [
      { path: signed },
      { path: root.pemPath, field: "roots" },
    ]);
    expect(job.status).toBe("done");
    expect(job.outputs?.map((output) => [output.name, output.contentType])).toEqual([
      ["report.json", "application/json"],
    ]);
    const report = JSON.parse(await readFile(await downloadFirst(job, "report.json"), "utf8"));
    expect(report).toEqual(job.verification);
    expect(openApi.allows(["components", "schemas", "SignatureReport"], report)).toBe(true);
    expect(report.signatures).toHaveLength(1);
    expect(report.signatures[0]).toMatchObject({
      subFilter: "ETSI.CAdES.detached",
      integrity: { valid: true },
      coverage: { wholeFile: true },
      chain: { trusted: true },
      revocation: { fetched: false },
      valid: true,
    });

    // Without the root, the same signature is intact but not trusted.
    const untrusted = await runJob("/v1/verify-signatures", [{ path: signed }]);
    expect(untrusted.verification?.signatures[0]).toMatchObject({
      integrity: { valid: true },
      chain: { trusted: false },
      valid: false,
    });
  });

  it("takes a URL in a JSON body, and gives a file without signatures a report with none", async () => {
    await writeFile(join(scratch.path, "unsigned.pdf"), await readFile(sample));
    const created = await client.postJson("/v1/verify-signatures", { url: `${site.url}/unsigned.pdf` });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const job = await client.waitForJob(String(created.body.id));
    expect(job.verification).toEqual({ file: "unsigned.pdf", signatures: [] });
  });
});

/** Every file under `dir`, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

describe("the certificate's secrets", () => {
  it("leave no trace in the logs, the database, the queue's files or storage once the jobs end", async () => {
    const dataDir = await createTempDir("octavo-sign-secrets-");
    const env = { ...process.env, OCTAVO_DATA_DIR: dataDir.path, OCTAVO_LOG_LEVEL: "debug" };
    const service = await startServiceProcess(env);
    try {
      const account = cliAccount(env, "signer@example.com");
      const local = service.client(account.apiKey);
      for (const secret of [password, "a wrong password"]) {
        const created = await local.postFiles("/v1/sign", [{ path: sample }, certificate()], {
          certificatePassword: secret,
        });
        expect(created.status, JSON.stringify(created.body)).toBe(202);
        const job = await local.waitForJob(String(created.body.id));
        expect(job.status).toBe(secret === password ? "done" : "failed");
      }
    } finally {
      process.kill(-(service.process.pid ?? 0), "SIGTERM");
      await new Promise((resolve) => service.process.once("exit", resolve));
    }
    const p12Bytes = await readFile(p12);
    const keyDer = Buffer.from(
      (await readFile(`${p12}.key.pem`, "utf8")).replace(/-----[^-]+-----|\s/g, ""),
      "base64",
    );
    // Distinctive slices: the middle of the PKCS#12 file and of the private key.
    const needles = [
      Buffer.from(password),
      Buffer.from("a wrong password"),
      p12Bytes.subarray(p12Bytes.length / 2, p12Bytes.length / 2 + 32),
      keyDer.subarray(keyDer.length / 2, keyDer.length / 2 + 32),
    ];
    const files = await filesUnder(dataDir.path);
    expect(files.some((file) => file.endsWith(".db") || file.includes("sqlite"))).toBe(true);
    const haystacks = [
      { name: "the service's output", bytes: Buffer.from(service.output()) },
      ...(await Promise.all(files.map(async (file) => ({ name: file, bytes: await readFile(file) })))),
    ];
    // The search can find what is there: the signer's certificate (public) is in the signed output in storage,
    // hex-encoded inside /Contents.
    const certificateDer = Buffer.from(
      (await readFile(`${p12}.pem`, "utf8")).replace(/-----[^-]+-----|\s/g, ""),
      "base64",
    );
    const certificateSlice = certificateDer.subarray(
      certificateDer.length / 2,
      certificateDer.length / 2 + 32,
    );
    const certificateHex = certificateSlice.toString("hex");
    expect(
      haystacks.some(({ bytes }) => bytes.toString("latin1").toLowerCase().includes(certificateHex)),
    ).toBe(true);
    for (const { name, bytes } of haystacks) {
      for (const [index, needle] of needles.entries())
        expect(bytes.includes(needle), `${name} holds needle ${index}`).toBe(false);
    }
    // The log says what happened, without the secrets.
    expect(service.logged("job done").length).toBeGreaterThan(0);
    await dataDir.dispose();
  });
});
