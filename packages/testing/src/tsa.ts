import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { makeSigner, type TestRoot } from "./signers.js";

const execFileAsync = promisify(execFile);

export interface TestTsa {
  url: string;
  port: number;
  /** The TSA's certificate, for `openssl ts -verify -untrusted`. */
  certificatePath: string;
  /** Answers to come: "reply" (openssl ts -reply) or "garbage". */
  mode: "reply" | "garbage";
  requests: number;
  close(): Promise<void>;
}

/** An RFC 3161 time-stamp authority on loopback: `openssl ts -reply` behind a small HTTP server. */
export async function startTsa(dir: string, root: TestRoot): Promise<TestTsa> {
  const p12 = await makeSigner(
    dir,
    root,
    { subject: "CN=octavo Test TSA,O=octavo tests", timeStamping: true },
    { password: "unused", file: "tsa.p12" },
  );
  const config = join(dir, "tsa.cnf");
  await writeFile(join(dir, "tsa-serial"), "01\n");
  await writeFile(
    config,
    [
      "[ tsa ]",
      "default_tsa = tsa_config1",
      "[ tsa_config1 ]",
      `serial = ${join(dir, "tsa-serial")}`,
      `signer_cert = ${p12}.pem`,
      `signer_key = ${p12}.key.pem`,
      `certs = ${root.pemPath}`,
      "signer_digest = sha256",
      "default_policy = 1.2.3.4.1",
      "digests = sha256, sha384, sha512",
      "accuracy = secs:1",
      "ess_cert_id_alg = sha256",
      "",
    ].join("\n"),
  );
  const state = { mode: "reply" as TestTsa["mode"], requests: 0 };
  let counter = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", async () => {
      state.requests += 1;
      if (state.mode === "garbage") {
        response.writeHead(200, { "content-type": "application/timestamp-reply" }).end("not a reply");
        return;
      }
      counter += 1;
      const query = join(dir, `query-${counter}.tsq`);
      const reply = join(dir, `reply-${counter}.tsr`);
      await writeFile(query, Buffer.concat(chunks));
      await execFileAsync("openssl", ["ts", "-reply", "-config", config, "-queryfile", query, "-out", reply]);
      response.writeHead(200, { "content-type": "application/timestamp-reply" }).end(await readFile(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/tsa`,
    port,
    certificatePath: `${p12}.pem`,
    get mode() {
      return state.mode;
    },
    set mode(value) {
      state.mode = value;
    },
    get requests() {
      return state.requests;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
