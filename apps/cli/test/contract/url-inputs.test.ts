import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { corpusPath, createTempDir } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../support/client.js";
import { type LocalServer, startLocalServer } from "../support/servers.js";
import { freePort, type Stack, startStack } from "../support/stack.js";

// URL inputs end to end, on this machine only: a file server that OCTAVO_URL_ALLOWLIST lets through,
// and a canary on another loopback port that the default policy must never reach.
const crazyOnes = readFileSync(corpusPath("general/samplefiles_crazyones-pdfa.pdf"));
const outline = corpusPath("general/samplefiles_pdflatex-outline.pdf");
const plain = corpusPath("general/cabinet_text_only_pdfa1b.pdf");

describe("URL inputs", () => {
  let stack: Stack;
  let files: LocalServer;
  let canary: LocalServer;
  let client: Client;
  /** Allowlisted, but nothing listens there: a refused connection. */
  let closedPort: number;

  beforeAll(async () => {
    closedPort = await freePort();
    canary = await startLocalServer((_req, res) => res.end("canary"));
    files = await startLocalServer((req, res) => {
      const path = req.url ?? "";
      if (path === "/crazy-ones.pdf") return res.end(crazyOnes);
      if (path === "/download?id=7") {
        res.setHeader("Content-Disposition", `attachment; filename*=UTF-8''R%C3%A9sum%C3%A9.pdf`);
        return res.end(crazyOnes);
      }
      if (path === "/export") {
        res.setHeader("Content-Type", "application/pdf");
        return res.end(crazyOnes);
      }
      if (path === "/to-canary") {
        res.writeHead(302, { location: `${canary.url}/stolen` });
        return res.end();
      }
      if (path === "/to-self") {
        res.writeHead(302, { location: "/crazy-ones.pdf" });
        return res.end();
      }
      if (path.startsWith("/loop")) {
        res.writeHead(302, { location: `/loop${path.length}` });
        return res.end();
      }
      if (path === "/announced-big.pdf") {
        res.writeHead(200, { "content-length": String(11 * 1024 * 1024) });
        return res.end(); // never sends the body: the announcement alone must be refused
      }
      if (path === "/streamed-big.pdf") {
        res.writeHead(200, { "content-type": "application/pdf" }); // chunked, no length
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        let sent = 0;
        const pump = () => {
          while (sent < 12 && res.write(chunk)) sent += 1;
          if (sent < 12) res.once("drain", pump);
          else res.end();
        };
        res.on("close", () => undefined);
        return pump();
      }
      if (path === "/slow.pdf") return; // never answers
      if (path === "/notes.txt") {
        res.setHeader("Content-Type", "text/plain");
        return res.end("not a pdf");
      }
      res.statusCode = 404;
      res.end("not here");
    });
    stack = await startStack({
      database: "sqlite",
      redis: "supervised",
      env: {
        OCTAVO_URL_ALLOWLIST: `127.0.0.1:${files.port},127.0.0.1:${closedPort}`,
        OCTAVO_URL_TIMEOUT_SECONDS: "2",
      },
    });
    client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
  });
  afterAll(async () => {
    await stack?.close();
    await files?.close();
    await canary?.close();
  });

  it("downloads URLs (Form B) and names them from Content-Disposition, the path or the Content-Type", async () => {
    const created = await client.postJson("/v1/merge", {
      urls: [
        `${files.url}/crazy-ones.pdf`,
        `${files.url}/download?id=7`,
        `${files.url}/export`,
        `${files.url}/to-self`,
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const job = await client.waitForJob(created.body.id as string);
    expect(job.status, job.message).toBe("done");
    const inputs = await stack.runtime.jobs.files(job.id, "input");
    expect(inputs.map((input) => input.name)).toEqual([
      "crazy-ones.pdf",
      "Résumé.pdf",
      "export.pdf",
      "crazy-ones.pdf",
    ]);
  });

  it("keeps the order of files and URLs mixed in one multipart request", async () => {
    const form = new FormData();
    form.append("file", new Blob([readFileSync(outline)]), "outline.pdf");
    form.append("url", `${files.url}/crazy-ones.pdf`);
    form.append("file", new Blob([readFileSync(plain)]), "plain.pdf");
    const response = await fetch(`${stack.baseUrl}/v1/merge`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.apiKey}` },
      body: form,
    });
    const created = (await response.json()) as { id: string };
    expect(response.status).toBe(202);
    const job = await client.waitForJob(created.id);
    const { bytes } = await client.download(job.outputs?.[0]?.url ?? "");
    const scratch = await createTempDir();
    try {
      const merged = join(scratch.path, "merged.pdf");
      writeFileSync(merged, bytes);
      const pageText = (page: number) =>
        execFileSync("pdftotext", ["-f", String(page), "-l", String(page), merged, "-"], {
          encoding: "utf8",
        });
      expect(pageText(1)).toContain("Contents"); // outline.pdf: pages 1-4
      expect(pageText(5)).toContain("The Crazy Ones"); // the URL: page 5
      expect(pageText(6)).toContain("This is a test document"); // plain.pdf: page 6
    } finally {
      await scratch.dispose();
    }
  });

  it("refuses private and loopback addresses in every notation, and never reaches them", async () => {
    const port = canary.port;
    const blocked = [
      `http://127.0.0.1:${port}/a.pdf`,
      `http://localhost:${port}/a.pdf`,
      `http://[::1]:${port}/a.pdf`,
      `http://[::ffff:127.0.0.1]:${port}/a.pdf`,
      `http://2130706433:${port}/a.pdf`,
      `http://0x7f.1:${port}/a.pdf`,
      `http://0177.0.0.1:${port}/a.pdf`,
      `${files.url}/to-canary`, // an allowed server redirecting to a blocked one
      "file:///etc/passwd",
      `ftp://127.0.0.1:${port}/a.pdf`,
    ];
    for (const url of blocked) {
      const answer = await client.postJson("/v1/rotate", { url });
      expect(answer.status, url).toBe(400);
      expect(answer.body.error, url).toBe("blocked_url");
      expect(answer.body.detail, url).toMatch(/^url /);
    }
    // A webhook URL and html-to-pdf's page URL go through the same policy.
    const hook = await client.postJson("/v1/rotate", {
      url: `${files.url}/crazy-ones.pdf`,
      webhook_url: `http://127.0.0.1:${port}/hook`,
    });
    expect(hook.status).toBe(400);
    expect(hook.body.error).toBe("blocked_url");
    const page = await client.postJson("/v1/convert/html-to-pdf", {
      options: { url: `http://localhost:${port}/` },
    });
    expect(page.status).toBe(400);
    expect(page.body.error).toBe("blocked_url");
    expect(canary.requests).toEqual([]);
  });

  it("answers unreachable_url for 404s, refused connections, timeouts and redirect loops", async () => {
    const cases: [string, RegExp][] = [
      [`${files.url}/missing.pdf`, /404/],
      [`${files.url}/slow.pdf`, /time|timed out|within/i],
      [`${files.url}/loop`, /redirect/i],
      [`http://127.0.0.1:${closedPort}/a.pdf`, /refused|connect/i],
    ];
    for (const [url, detail] of cases) {
      const answer = await client.postJson("/v1/rotate", { url });
      expect(answer.status, url).toBe(400);
      expect(answer.body.error, url).toBe("unreachable_url");
      expect(answer.body.detail, url).toMatch(detail);
    }
  });

  it("answers 413 too_large for a URL over the plan's size, announced or streamed", async () => {
    const free = new Client(stack.baseUrl, (await stack.createAccount("free")).apiKey);
    for (const path of ["/announced-big.pdf", "/streamed-big.pdf"]) {
      const answer = await free.postJson("/v1/rotate", { url: `${files.url}${path}` });
      expect(answer.status, path).toBe(413);
      expect(answer.body.error, path).toBe("too_large");
    }
  });

  it("checks the file rules on downloaded names, and the URL count", async () => {
    const wrongType = await client.postJson("/v1/rotate", { url: `${files.url}/notes.txt` });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toMatchObject({
      error: "invalid_input",
      detail: "extension: must be one of .pdf",
    });
    const tooMany = await client.postJson("/v1/merge", {
      urls: Array.from({ length: 21 }, () => `${files.url}/crazy-ones.pdf`),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toBe("invalid_input");
    expect(tooMany.body.detail).toBe("urls: at most 20 entries");
  });
});
