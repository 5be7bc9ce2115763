import { spawn } from "node:child_process";
import { copyFile, readFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { operationIds } from "@octavo/contracts";
import { serveHttp } from "@octavo/mcp";
import { corpusPath, createTempDir, waitFor } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./support/client.js";
import { pageCount } from "./support/pdf-checks.js";
import { type LocalServer, startLocalServer } from "./support/servers.js";
import { type Stack, startStack } from "./support/stack.js";

const bin = fileURLToPath(new URL("../../mcp/bin/octavo-mcp.mjs", import.meta.url));
const inspector = fileURLToPath(
  new URL("../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js", import.meta.url),
);
const example = (name: string) => fileURLToPath(new URL(`../../../examples/${name}`, import.meta.url));

type Content = { type: string; text?: string; uri?: string; name?: string; mimeType?: string };
const textOf = (content: unknown) => ((content as Content[])[0]?.text ?? "") as string;
const errorOf = (answer: unknown) => {
  const result = answer as { isError?: boolean; content: unknown };
  expect(result.isError).toBe(true);
  return JSON.parse(textOf(result.content)) as { error: string; message: string; detail?: string };
};

/** octavo-mcp (apps/mcp) over the SDK's own MCP client and the MCP Inspector, against the whole service. */
describe("octavo-mcp, the MCP server, against the real service", () => {
  let stack: Stack;
  let site: LocalServer;
  let scratch: { path: string; dispose(): Promise<void> };
  let root: string;
  let apiKey: string;

  beforeAll(async () => {
    site = await startLocalServer((req, res) => {
      res.setHeader("content-type", "application/pdf");
      void readFile(example(req.url === "/b.pdf" ? "sample-b.pdf" : "sample-a.pdf")).then((bytes) =>
        res.end(bytes),
      );
    });
    stack = await startStack({
      database: "sqlite",
      redis: "supervised",
      env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${site.port}` },
    });
    ({ apiKey } = await stack.createAccount("business"));
    scratch = await createTempDir("octavo-mcp-");
    root = join(scratch.path, "root");
    await import("node:fs/promises").then(({ mkdir }) => mkdir(root));
    for (const [from, name] of [
      [example("sample-a.pdf"), "a.pdf"],
      [example("sample-b.pdf"), "b.pdf"],
      [corpusPath("general/samplefiles_pdflatex-outline.pdf"), "outline.pdf"],
      [corpusPath("scanned/ocrmypdf_multipage.pdf"), "scan.pdf"],
    ] as const)
      await copyFile(from, join(root, name));
  });
  afterAll(async () => {
    await stack?.close();
    await site?.close();
    await scratch?.dispose();
  });

  const serverEnv = () => ({
    PATH: process.env.PATH ?? "",
    OCTAVO_API_KEY: apiKey,
    OCTAVO_BASE_URL: stack.baseUrl,
  });
  const stdioClient = async () => {
    const client = new McpClient({ name: "octavo-tests", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [bin, "--root", root], env: serverEnv() }),
    );
    return client;
  };

  it("lists a tool per operation, and runs merge and pdf-to-markdown over stdio on files in its root", async () => {
    const client = await stdioClient();
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(
        [...operationIds, "account", "cancel_job", "get_job", "list_jobs"].sort(),
      );
      const merged = await client.callTool({
        name: "merge",
        arguments: { inputs: [join(root, "a.pdf"), join(root, "b.pdf")] },
      });
      expect(merged.isError).toBeFalsy();
      const content = merged.content as Content[];
      expect(JSON.parse(textOf(content))).toMatchObject({
        status: "done",
        operation: "merge",
        livemode: true,
      });
      const link = content.find((item) => item.type === "resource_link");
      expect(link).toMatchObject({ name: "merged.pdf", mimeType: "application/pdf" });
      const download = await new Client(stack.baseUrl, apiKey).downloadTo(
        link?.uri,
        join(scratch.path, "merged.pdf"),
      );
      expect(await pageCount(download)).toBe(2);

      // A text output comes back inline too: the agent reads the converted document directly.
      const markdown = await client.callTool({
        name: "pdf-to-markdown",
        arguments: { inputs: [join(root, "outline.pdf")] },
      });
      const parts = markdown.content as Content[];
      expect(parts.find((item) => item.type === "resource_link")?.mimeType).toMatch(/^text\/markdown/);
      expect(parts.at(-1)?.text).toMatch(/^# /);
    } finally {
      await client.close();
    }
  });

  it("refuses a path outside its root, and returns the API's errors for the agent to act on", async () => {
    const client = await stdioClient();
    try {
      const outside = await client.callTool({
        name: "rotate",
        arguments: { inputs: [example("sample-a.pdf")], angle: 90 },
      });
      expect(errorOf(outside)).toMatchObject({ error: "path_outside_root" });
      const badOption = await client.callTool({
        name: "rotate",
        arguments: { inputs: [join(root, "a.pdf")], angle: 45 },
      });
      expect(errorOf(badOption)).toMatchObject({
        error: "invalid_options",
        detail: expect.stringContaining("angle"),
      });
      const missing = await client.callTool({ name: "get_job", arguments: { id: "job_nosuchjob" } });
      expect(errorOf(missing).error).toBe("not_found");
    } finally {
      await client.close();
    }
  });

  it("serves Streamable HTTP, each client acting with its own key and no other's", async () => {
    const served = await serveHttp({
      host: "127.0.0.1",
      port: 0,
      baseUrl: stack.baseUrl,
      inlineLimit: 65_536,
      allowedHosts: [],
    });
    const other = await stack.createAccount("starter");
    const connect = async (key: string) => {
      const client = new McpClient({ name: "octavo-tests", version: "1.0.0" });
      const transport = new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      });
      await client.connect(transport);
      return { client, transport };
    };
    const first = await connect(apiKey);
    const second = await connect(other.apiKey);
    try {
      const plans = await Promise.all(
        [first, second].map(
          async ({ client }) =>
            JSON.parse(textOf((await client.callTool({ name: "account", arguments: {} })).content)).plan,
        ),
      );
      expect(plans).toEqual(["business", "starter"]);
      const merged = await first.client.callTool({
        name: "merge",
        arguments: { inputs: [`${site.url}/a.pdf`, `${site.url}/b.pdf`] },
      });
      expect(JSON.parse(textOf(merged.content))).toMatchObject({ status: "done" });
      // Over HTTP the server reads no local file.
      const local = await first.client.callTool({
        name: "rotate",
        arguments: { inputs: [join(root, "a.pdf")], angle: 90 },
      });
      expect(errorOf(local).error).toBe("path_not_allowed");
      // A session answers only the key that opened it; a request without a key is refused.
      const list = { jsonrpc: "2.0", id: 9, method: "tools/list", params: {} };
      const post = (headers: Record<string, string>) =>
        fetch(served.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...headers,
          },
          body: JSON.stringify(list),
        });
      const session = first.transport.sessionId ?? "";
      expect(
        (await post({ "mcp-session-id": session, authorization: `Bearer ${other.apiKey}` })).status,
      ).toBe(403);
      expect((await post({ "mcp-session-id": session })).status).toBe(401);
      // A page on another name that resolves to this machine (DNS rebinding) is refused by its Host.
      const rebound = await new Promise<number>((resolve, reject) => {
        const url = new URL(served.url);
        const request = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: "POST",
            headers: { host: "evil.example" },
          },
          (answer) => resolve(answer.statusCode ?? 0),
        );
        request.on("error", reject);
        request.end(JSON.stringify(list));
      });
      expect(rebound).toBe(403);
    } finally {
      await first.client.close();
      await second.client.close();
      await served.close();
    }
  });

  it("cancels the job when the caller cancels a long OCR, having reported its progress", async () => {
    const client = await stdioClient();
    const api = new Client(stack.baseUrl, apiKey);
    try {
      const abort = new AbortController();
      const progress: number[] = [];
      const call = client.callTool(
        { name: "ocr", arguments: { inputs: [join(root, "scan.pdf")], force: true } },
        CallToolResultSchema,
        {
          signal: abort.signal,
          onprogress: (update) => progress.push(update.progress),
          timeout: 120_000,
        },
      );
      const outcome = call.then(
        () => "answered",
        () => "canceled",
      );
      const running = await waitFor(
        "the OCR job to run",
        async () => {
          const jobs = (await api.get("/v1/jobs?operation=ocr&limit=1")).body.data as {
            id: string;
            status: string;
          }[];
          return jobs[0]?.status === "active" ? jobs[0].id : undefined;
        },
        60_000,
      );
      await waitFor("a progress notification", () => (progress.length > 0 ? true : undefined), 60_000);
      abort.abort();
      expect(await outcome).toBe("canceled");
      const job = await waitFor("the job to end canceled", async () => {
        const current = await api.waitForJob(running);
        return current.status === "failed" ? current : undefined;
      });
      expect(job).toMatchObject({ status: "failed", error: "canceled" });
    } finally {
      await client.close();
    }
  }, 180_000);

  it("lists the tools and calls merge and pdf-to-markdown from the MCP Inspector's command line", async () => {
    const inspect = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        // The Inspector starts the server with the variables given with -e; the server's own arguments follow --.
        const env = Object.entries(serverEnv()).flatMap(([name, value]) => ["-e", `${name}=${value}`]);
        const child = spawn(
          process.execPath,
          [inspector, "--cli", ...env, ...args, "--", process.execPath, bin, "--root", root],
          { env: { ...process.env, HOME: scratch.path } },
        );
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        child.on("close", (code) => resolve({ code, stdout, stderr }));
      });
    // --strict: the Inspector's check that every tool's schema is portable across MCP clients.
    const listed = await inspect(["--method", "tools/list", "--strict"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toBe("");
    const names = (JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["merge", "pdf-to-markdown", "get_job"]));
    const merged = await inspect([
      "--method",
      "tools/call",
      "--tool-name",
      "merge",
      "--tool-arg",
      `inputs=${JSON.stringify([join(root, "a.pdf"), join(root, "b.pdf")])}`,
    ]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toContain("merged.pdf");
    const markdown = await inspect([
      "--method",
      "tools/call",
      "--tool-name",
      "pdf-to-markdown",
      "--tool-arg",
      `inputs=${JSON.stringify([join(root, "outline.pdf")])}`,
    ]);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toContain("text/markdown");
  }, 120_000);
});
