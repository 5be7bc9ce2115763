import { connect } from "node:net";
import { parseAllowlist } from "@octavo/net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobNetwork } from "../src/job-network.js";
import { PolicyProxy } from "../src/policy-proxy.js";
import { startServer, type TestServer, testResolver } from "./helpers.js";

/**
 * Sends a raw request to the proxy (asking to close after it) and returns everything it answers until
 * it closes (or 2 s pass).
 */
function exchange(port: number, request: string): Promise<string> {
  const closing = request.startsWith("CONNECT")
    ? request
    : request.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n");
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(closing));
    let answer = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      answer += chunk;
    });
    socket.setTimeout(2_000, () => socket.destroy());
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
  });
}

// The second layer on its own, without Chromium: what a request reaching the proxy gets.
describe("the policy proxy", () => {
  let canary: TestServer;
  let allowed: TestServer;
  let network: JobNetwork;
  let proxy: PolicyProxy;
  let port: number;

  beforeAll(async () => {
    canary = await startServer("127.0.0.1", (_req, res) => res.end("CANARY"));
    allowed = await startServer("127.0.0.1", (req, res) => {
      if (req.url === "/big") res.end(Buffer.alloc(300_000, 66));
      else res.end(`hello from ${req.headers.host}`);
    });
    network = new JobNetwork({
      allowlist: parseAllowlist(`127.0.0.1:${allowed.port}`),
      resolve: testResolver({ "allowed.test": ["127.0.0.1"], "rebind.test": ["127.0.0.1"] }),
      maxBytes: 200_000,
    });
    proxy = await PolicyProxy.start(network, (error) => {
      throw error;
    });
    port = Number(new URL(proxy.url).port);
  });

  afterAll(async () => {
    await proxy.close();
    await Promise.all([canary.close(), allowed.close()]);
  });

  it("forwards a plain request to an allowed target, with its Host header", async () => {
    const answer = await exchange(
      port,
      `GET http://allowed.test:${allowed.port}/x HTTP/1.1\r\nHost: allowed.test:${allowed.port}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1.1 200/);
    expect(answer).toContain(`hello from allowed.test:${allowed.port}`);
  });

  it.each([
    (p: number) => `127.0.0.1:${p}`,
    (p: number) => `localhost:${p}`,
    (p: number) => `[::ffff:127.0.0.1]:${p}`,
    (p: number) => `0x7f.1:${p}`,
    (p: number) => `rebind.test:${p}`,
  ])("refuses plain requests and tunnels to a blocked target (%#)", async (authority) => {
    const target = authority(canary.port);
    const plain = await exchange(port, `GET http://${target}/ HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
    expect(plain).toMatch(/^HTTP\/1.1 403/);
    const tunnel = await exchange(port, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
    expect(tunnel).toMatch(/^HTTP\/1.1 403/);
    expect(canary.connections).toBe(0);
  });

  it("tunnels to an allowed target", async () => {
    const target = `127.0.0.1:${allowed.port}`;
    const answer = await exchange(
      port,
      `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\nGET /t HTTP/1.1\r\nHost: ${target}\r\nConnection: close\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1.1 200 Connection Established\r\n\r\nHTTP\/1.1 200/);
  });

  it("refuses what is not a proxy request, and https sent as a plain request", async () => {
    expect(await exchange(port, "GET /relative HTTP/1.1\r\nHost: x\r\n\r\n")).toMatch(/^HTTP\/1.1 400/);
    const https = `GET https://127.0.0.1:${allowed.port}/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    expect(await exchange(port, https)).toMatch(/^HTTP\/1.1 400/);
  });

  it("cuts a download past the job's byte budget and refuses new ones", async () => {
    const target = `127.0.0.1:${allowed.port}`;
    const answer = await exchange(port, `GET http://${target}/big HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
    expect(answer.length).toBeLessThan(300_000);
    expect(network.overBudget).toBe(true);
    const next = await exchange(port, `GET http://${target}/x HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
    expect(next).toMatch(/^HTTP\/1.1 403/);
  });
});
