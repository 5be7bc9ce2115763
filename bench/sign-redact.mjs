#!/usr/bin/env node
// Signing and verification against poppler's pdfsig, on the same files in one run (issue 35; redaction joins
// it with its engine). Every run alternates the sides and reports medians and their ratio.
//   - sign: @octavo/sign's signPdf in a warm process (PAdES B-B, RSA 2048 from a PKCS#12 read by OpenSSL,
//     the MuPDF incremental save, PKI.js's CMS) on a ~1 MB corpus PDF; beside it `openssl cms -sign` of the same
//     bytes, the raw CMS a signer cannot do without, and pdfsig's check of our output (what a verifier spends).
//   - verify: @octavo/sign's verifySignatures on the signed file against `pdfsig` of it.
//
//   pnpm exec turbo run build --filter=@octavo/sign
//   node bench/sign-redact.mjs [--runs 15] [--file general/pdfjs_tracemonkey_with_annotations.pdf]
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { corpusDir } from "./pdf-office/corpus.mjs";
import { median } from "./support.mjs";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "15" },
    file: { type: "string", default: "general/pdfjs_tracemonkey_with_annotations.pdf" },
  },
});
const runs = Number(values.runs);
const pdf = join(corpusDir, values.file);
const { signPdf } = await import("../packages/sign/dist/sign.js");
const { verifySignatures } = await import("../packages/sign/dist/verify.js");

const work = mkdtempSync(join(tmpdir(), "octavo-bench-sign-"));
const password = "bench";
const openssl = (...args) => execFileSync("openssl", args, { cwd: work, stdio: ["ignore", "pipe", "pipe"] });
openssl(
  "req",
  "-x509",
  "-newkey",
  "rsa:2048",
  "-nodes",
  "-keyout",
  "key.pem",
  "-out",
  "cert.pem",
  "-subj",
  "/CN=Bench Signer",
  "-days",
  "2",
  "-addext",
  "keyUsage=digitalSignature,nonRepudiation",
);
openssl(
  "pkcs12",
  "-export",
  "-inkey",
  "key.pem",
  "-in",
  "cert.pem",
  "-passout",
  `pass:${password}`,
  "-out",
  "signer.p12",
);

const input = (path) => ({ path, name: path.split("/").pop() });
const timed = async (work) => {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
};

const sides = { sign: [], opensslCms: [], verify: [], pdfsig: [] };
let signed;
for (let run = 0; run < runs; run += 1) {
  const jobDir = mkdtempSync(join(work, "job-"));
  const ours = await timed(() =>
    signPdf(
      { pdf: input(pdf), certificate: input(join(work, "signer.p12")) },
      { certificatePassword: password },
      { workDir: jobDir },
    ),
  );
  sides.sign.push(ours.ms);
  signed = ours.value.outputs[0].path;
  const cms = await timed(async () =>
    openssl(
      "cms",
      "-sign",
      "-binary",
      "-in",
      pdf,
      "-signer",
      "cert.pem",
      "-inkey",
      "key.pem",
      "-md",
      "sha256",
      "-outform",
      "DER",
      "-out",
      "raw.p7s",
    ),
  );
  sides.opensslCms.push(cms.ms);
  const check = await timed(async () =>
    execFileSync("pdfsig", [signed], { stdio: ["ignore", "pipe", "pipe"] }),
  );
  sides.pdfsig.push(check.ms);
  const verified = await timed(() =>
    verifySignatures({ pdf: input(signed), roots: [input(join(work, "cert.pem"))] }, {}, { workDir: jobDir }),
  );
  sides.verify.push(verified.ms);
}

const m = Object.fromEntries(Object.entries(sides).map(([side, list]) => [side, median(list)]));
const mb = (statSync(pdf).size / 1024 ** 2).toFixed(2);
console.log(`Signing and verifying ${values.file} (${mb} MiB), ${runs} runs, medians (ms):\n`);
console.log("| side | median ms | ratio |");
console.log("|---|---|---|");
console.log(
  `| sign (signPdf, in process) | ${m.sign.toFixed(0)} | ${(m.sign / m.opensslCms).toFixed(2)}× openssl cms -sign |`,
);
console.log(`| openssl cms -sign (the raw CMS, a process) | ${m.opensslCms.toFixed(0)} | |`);
console.log(
  `| verify (verifySignatures, in process) | ${m.verify.toFixed(0)} | ${(m.verify / m.pdfsig).toFixed(2)}× pdfsig |`,
);
console.log(`| pdfsig (a process) | ${m.pdfsig.toFixed(0)} | |`);
rmSync(work, { recursive: true, force: true });
