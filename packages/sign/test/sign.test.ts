import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JobFailure } from "@octavo/engines";
import { loadMupdf } from "@octavo/mupdf";
import { parseAllowlist } from "@octavo/net";
import { corpusPath, rejectionOf, runTool } from "@octavo/testing";
import {
  type KeyKind,
  makeRoot,
  makeSigner,
  mismatchedP12,
  type TestRoot,
  x509,
} from "@octavo/testing/signers";
import { startTsa, type TestTsa } from "@octavo/testing/tsa";
import * as pkijs from "pkijs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SignContext, type SignOptions, signPdf } from "../src/sign.js";

const sample = corpusPath("general/samplefiles_pdflatex-outline.pdf");
// A filled form whose cross-reference is a stream; a paper updated incrementally before.
const xrefStream = corpusPath("general/pdfjs_prefilled_f1040.pdf");
const updatedBefore = corpusPath("general/pdfjs_tracemonkey_with_annotations.pdf");
const password = "correct horse battery";

let dir: string;
let root: TestRoot;
let tsa: TestTsa;
const signers: Partial<Record<KeyKind | "legacy", string>> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "octavo-sign-test-"));
  root = await makeRoot(dir);
  for (const kind of ["rsa", "ec256", "ec384"] as const) {
    signers[kind] = await makeSigner(
      dir,
      root,
      { subject: `CN=Signer ${kind},O=octavo tests`, kind },
      {
        password,
        file: `${kind}.p12`,
      },
    );
  }
  signers.legacy = await makeSigner(
    dir,
    root,
    { subject: "CN=Legacy Export" },
    {
      password,
      legacy: true,
      file: "legacy.p12",
    },
  );
  tsa = await startTsa(dir, root);
});

afterAll(async () => {
  await tsa?.close();
  await rm(dir, { recursive: true, force: true });
});

async function context(): Promise<SignContext> {
  const outbound = { allowlist: parseAllowlist(`127.0.0.1:${tsa.port}`) };
  return { workDir: await mkdtemp(join(dir, "job-")), outbound };
}

function input(path: string, name = path.split("/").pop() ?? path) {
  return { path, name };
}

async function sign(pdf: string, p12: string, options: Partial<SignOptions> = {}): Promise<string> {
  const result = await signPdf(
    { pdf: input(pdf), certificate: input(p12, "signer.p12") },
    { certificatePassword: password, ...options },
    await context(),
  );
  const [output] = result.outputs;
  if (output === undefined) throw new Error("no output");
  return output.path;
}

/** poppler's pdfsig report, one block per signature. */
async function pdfsig(path: string): Promise<string[]> {
  const result = await runTool("pdfsig", [path]);
  return result.stdout.split(/^Signature #\d+:$/m).slice(1);
}

/** The DER value at the start of `hex` (a CMS followed by /Contents's zero padding), by its length header. */
function derAt(hex: string): Buffer {
  const bytes = Buffer.from(hex, "hex");
  const first = bytes[1] ?? 0;
  if (first < 0x80) return bytes.subarray(0, 2 + first);
  const size = first & 0x7f;
  const length = bytes.subarray(2, 2 + size).reduce((total, byte) => total * 256 + byte, 0);
  return bytes.subarray(0, 2 + size + length);
}

/** The last signature's CMS (by its DER length, without /Contents's zero padding) and the bytes it signs. */
async function lastSignature(path: string): Promise<{ cms: Buffer; signed: Buffer }> {
  const file = await readFile(path);
  const ranges = [
    ...file.toString("latin1").matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g),
  ];
  const last = ranges.at(-1);
  if (last === undefined) throw new Error("no ByteRange");
  const [a, b, c, d] = last.slice(1, 5).map(Number) as [number, number, number, number];
  const signed = Buffer.concat([file.subarray(a, a + b), file.subarray(c, c + d)]);
  return { cms: derAt(file.subarray(a + b + 1, c - 1).toString("latin1")), signed };
}

/** `openssl cms -verify` of the last signature against the test root. */
async function opensslVerifies(path: string): Promise<{ code: number; stderr: string }> {
  const { cms, signed } = await lastSignature(path);
  const cmsPath = join(dir, "last.p7s");
  const dataPath = join(dir, "last.bin");
  await writeFile(cmsPath, cms);
  await writeFile(dataPath, signed);
  const result = await runTool("openssl", [
    "cms",
    "-verify",
    "-binary",
    "-inform",
    "DER",
    "-in",
    cmsPath,
    "-content",
    dataPath,
    "-CAfile",
    root.pemPath,
    "-purpose",
    "any",
    "-out",
    "/dev/null",
  ]);
  return { code: result.code, stderr: result.stderr };
}

/** `openssl cms -cmsout -print` of the last signature. */
async function printedCms(path: string): Promise<string> {
  const cmsPath = join(dir, "printed.p7s");
  await writeFile(cmsPath, (await lastSignature(path)).cms);
  return (await runTool("openssl", ["cms", "-cmsout", "-print", "-inform", "DER", "-in", cmsPath])).stdout;
}

describe("signPdf", () => {
  it.each(["rsa", "ec256", "ec384", "legacy"] as const)(
    "signs with a %s key: pdfsig and openssl cms find the signature valid over the whole file",
    async (kind) => {
      const signed = await sign(sample, signers[kind] ?? "");
      const [report] = await pdfsig(signed);
      expect(report).toContain("Signature is Valid.");
      expect(report).toContain("Total document signed");
      expect(report).toContain("Signature Type: ETSI.CAdES.detached");
      expect(report).toMatch(/Signer Certificate Common Name: (Signer|Legacy)/);
      expect(await opensslVerifies(signed)).toMatchObject({ code: 0 });
    },
  );

  it("keeps the input's bytes as the prefix of the output (an incremental update)", async () => {
    for (const pdf of [sample, xrefStream, updatedBefore]) {
      const original = await readFile(pdf);
      const path = await sign(pdf, signers.rsa ?? "");
      const signed = await readFile(path);
      expect(signed.length).toBeGreaterThan(original.length);
      expect(signed.subarray(0, original.length).equals(original)).toBe(true);
      const reports = await pdfsig(path);
      expect(reports.at(-1), pdf).toContain("Signature is Valid.");
    }
  });

  it("writes PAdES B-B attributes: signing-certificate-v2 and no CMS signing-time", async () => {
    const signed = await sign(sample, signers.ec256 ?? "", { reason: "Approved", location: "Zürich" });
    const [report] = await pdfsig(signed);
    expect(report).toContain("Signing Hash Algorithm: SHA-256");
    const printed = await printedCms(signed);
    expect(printed).toContain("id-smime-aa-signingCertificateV2");
    expect(printed).toContain("messageDigest (1.2.840.113549.1.9.4)");
    expect(printed).not.toContain("signingTime");
    expect(printed).not.toContain("timeStampToken");
    expect((await readFile(signed)).toString("latin1")).toMatch(/\/Reason\s*\(Approved\)/);
  });

  it("adds a second signature and keeps the first valid", async () => {
    const once = await sign(sample, signers.rsa ?? "");
    const twice = await sign(once, signers.ec256 ?? "");
    const reports = await pdfsig(twice);
    expect(reports).toHaveLength(2);
    expect(reports[0]).toContain("Signature is Valid.");
    expect(reports[0]).toContain("Not total document signed");
    expect(reports[1]).toContain("Signature is Valid.");
    expect(reports[1]).toContain("Total document signed");
    expect(reports[1]).toMatch(/Signature Field Name: Signature2/);
  });

  it("signs an existing empty signature field by name, and refuses one that is signed", async () => {
    const once = await sign(sample, signers.rsa ?? "", { fieldName: "Approval" });
    const [report] = await pdfsig(once);
    expect(report).toContain("Signature Field Name: Approval");
    const failure = await rejectionOf(sign(once, signers.rsa ?? "", { fieldName: "Approval" }), JobFailure);
    expect(failure.code).toBe("invalid_input");
    expect(failure.message).toContain('"Approval" is signed already');
  });

  it("certifies with DocMDP permissions, and refuses to certify a signed file", async () => {
    const certified = await sign(sample, signers.rsa ?? "", { certify: 2 });
    const text = (await readFile(certified)).toString("latin1");
    expect(text).toMatch(/\/TransformMethod\s*\/DocMDP/);
    expect(text).toMatch(/\/Perms\s*<<\s*\/DocMDP/);
    const [report] = await pdfsig(certified);
    expect(report).toContain("Signature is Valid.");
    const failure = await rejectionOf(sign(certified, signers.ec256 ?? "", { certify: 1 }), JobFailure);
    expect(failure.message).toContain("certification signature must be a document's first");
    const locked = await sign(sample, signers.rsa ?? "", { certify: 1 });
    const refused = await rejectionOf(sign(locked, signers.ec256 ?? ""), JobFailure);
    expect(refused.message).toContain("no changes allowed");
  });

  it("makes PAdES B-T with a time-stamp server: openssl ts verifies the token over the signature value", async () => {
    const before = tsa.requests;
    const signed = await sign(sample, signers.rsa ?? "", { timestampUrl: tsa.url });
    expect(tsa.requests).toBe(before + 1);
    const [report] = await pdfsig(signed);
    expect(report).toContain("Signature is Valid.");
    expect(await opensslVerifies(signed)).toMatchObject({ code: 0 });
    const info = pkijs.ContentInfo.fromBER((await lastSignature(signed)).cms);
    const signer = new pkijs.SignedData({ schema: info.content }).signerInfos[0];
    const token = signer?.unsignedAttrs?.attributes.find((a) => a.type === "1.2.840.113549.1.9.16.2.14");
    expect(token).toBeDefined();
    const valuePath = join(dir, "signature-value.bin");
    const tokenPath = join(dir, "token.der");
    await writeFile(valuePath, Buffer.from(signer?.signature.valueBlock.valueHexView ?? []));
    await writeFile(tokenPath, Buffer.from(token?.values[0]?.toBER(false) ?? new ArrayBuffer(0)));
    const verified = await runTool("openssl", [
      "ts",
      "-verify",
      "-data",
      valuePath,
      "-in",
      tokenPath,
      "-token_in",
      "-CAfile",
      root.pemPath,
      "-untrusted",
      tsa.certificatePath,
    ]);
    expect(verified.stdout).toContain("Verification: OK");
  });

  it("fails a time-stamp the outbound policy refuses, or a server that answers no token", async () => {
    const blocked = await rejectionOf(
      signPdf(
        { pdf: input(sample), certificate: input(signers.rsa ?? "", "signer.p12") },
        { certificatePassword: password, timestampUrl: tsa.url },
        { workDir: await mkdtemp(join(dir, "job-")), outbound: { allowlist: parseAllowlist("") } },
      ),
      JobFailure,
    );
    expect(blocked.code).toBe("invalid_input");
    expect(blocked.message).toContain("is not a public address");
    tsa.mode = "garbage";
    try {
      const failure = await rejectionOf(
        sign(sample, signers.rsa ?? "", { timestampUrl: tsa.url }),
        JobFailure,
      );
      expect(failure.code).toBe("conversion_failed");
      expect(failure.message).toContain("is not an RFC 3161 time-stamp response");
    } finally {
      tsa.mode = "reply";
    }
  });

  describe("a visible signature", () => {
    /** Page 1's text as MuPDF extracts it, with the appearances of its widgets. */
    async function pageText(pdf: string): Promise<string> {
      const mupdf = await loadMupdf();
      const doc = new mupdf.PDFDocument(await readFile(pdf));
      try {
        // With extras: the annotations and widgets are drawn too.
        return doc.loadPage(0).toDisplayList(true).toStructuredText("").asText();
      } finally {
        doc.destroy();
      }
    }

    /** Mean darkness (0 white .. 255 black) of page 1 at 72 dpi inside `box` ([x, y, w, h] as displayed). */
    async function darkness(pdf: string, box: [number, number, number, number]): Promise<number> {
      const stem = join(dir, `render-${Math.random().toString(36).slice(2)}`);
      await runTool("pdftoppm", ["-r", "72", "-gray", "-f", "1", "-l", "1", "-singlefile", pdf, stem]);
      const pgm = await readFile(`${stem}.pgm`);
      const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 64).toString("latin1"));
      if (header === null) throw new Error("not a PGM");
      const width = Number(header[1]);
      const pixels = pgm.subarray(header[0].length);
      let sum = 0;
      let count = 0;
      const [x, y, w, h] = box.map(Math.round) as [number, number, number, number];
      for (let row = y; row < y + h; row += 1) {
        for (let col = x; col < x + w; col += 1) {
          sum += 255 - (pixels[row * width + col] ?? 255);
          count += 1;
        }
      }
      return sum / count;
    }

    it("draws the signer, date and reason, and an image, where it is asked, on a rotated page too", async () => {
      const png = join(dir, "seal");
      await runTool("pdftoppm", ["-png", "-r", "12", "-f", "1", "-l", "1", "-singlefile", sample, png]);
      const rotated = join(dir, "rotated.pdf");
      await runTool("qpdf", ["--rotate=+90:1", sample, rotated]);
      for (const pdf of [sample, rotated]) {
        const box: [number, number, number, number] = [40, 40, 220, 70];
        const before = await darkness(pdf, box);
        const result = await signPdf(
          {
            pdf: input(pdf),
            certificate: input(signers.rsa ?? "", "signer.p12"),
            image: input(`${png}.png`),
          },
          { certificatePassword: password, reason: "Approved", appearance: { page: 1, rect: box } },
          await context(),
        );
        const signed = result.outputs[0]?.path ?? "";
        expect((await pdfsig(signed))[0]).toContain("Signature is Valid.");
        expect(await darkness(signed, box), pdf).toBeGreaterThan(before + 10);
        const text = await pageText(signed);
        expect(text).toContain("Digitally signed by Signer rsa");
        expect(text).toContain("Reason: Approved");
      }
    });

    it("refuses a page that does not exist and a box outside the page", async () => {
      const page = await rejectionOf(
        sign(sample, signers.rsa ?? "", { appearance: { page: 9 } }),
        JobFailure,
      );
      expect(page.message).toContain("options.appearance.page is 9, but the document has 4 pages");
      const outside = await rejectionOf(
        sign(sample, signers.rsa ?? "", { appearance: { page: 1, rect: [500, 700, 300, 200] } }),
        JobFailure,
      );
      expect(outside.message).toContain("reaches outside page 1");
    });
  });

  describe("refuses a signer a verifier would reject, before signing", () => {
    async function refusal(p12: string, options: Partial<SignOptions> = {}): Promise<JobFailure> {
      return rejectionOf(sign(sample, p12, options), JobFailure);
    }

    it("a wrong password, and one with a line break", async () => {
      const failure = await refusal(signers.rsa ?? "", { certificatePassword: "wrong" });
      expect(failure.code).toBe("invalid_input");
      expect(failure.message).toContain(
        "could not be opened with the password in options.certificatePassword",
      );
      const broken = await refusal(signers.rsa ?? "", { certificatePassword: `${password}\nmore` });
      expect(broken.message).toContain("holds a line break");
    });

    it("an expired certificate, and one not valid yet", async () => {
      const expired = await makeSigner(
        dir,
        root,
        { subject: "CN=Expired", validFrom: -40, validTo: -5 },
        {
          password,
          file: "expired.p12",
        },
      );
      expect((await refusal(expired)).message).toMatch(/\(Expired\) expired on \d{4}-/);
      const early = await makeSigner(
        dir,
        root,
        { subject: "CN=Early", validFrom: 5, validTo: 40 },
        {
          password,
          file: "early.p12",
        },
      );
      expect((await refusal(early)).message).toMatch(/\(Early\) is not valid before \d{4}-/);
    });

    it("a key that does not match the certificate", async () => {
      const other = await makeSigner(dir, root, { subject: "CN=Other" }, { password, file: "other.p12" });
      const failure = await refusal(mismatchedP12(dir, `${other}.key.pem`, `${signers.rsa}.pem`, password));
      expect(failure.code).toBe("invalid_input");
      expect(failure.message).toContain("does not match its certificate");
    });

    it("a certificate whose key usage forbids signatures", async () => {
      const encipherOnly = await makeSigner(
        dir,
        root,
        { subject: "CN=Encryption Only", keyUsage: x509.KeyUsageFlags.keyEncipherment },
        { password, file: "encipher.p12" },
      );
      const failure = await refusal(encipherOnly);
      expect(failure.message).toContain("neither digitalSignature nor nonRepudiation");
    });

    it("a file that is not PKCS#12", async () => {
      const failure = await refusal(sample);
      expect(failure.code).toBe("invalid_input");
      expect(failure.message).toContain("is not a PKCS#12 certificate file");
    });

    it("an encrypted PDF, with the spec's password_required", async () => {
      const encrypted = corpusPath("encrypted/qpdf_enc-R3_V2_U-view_O-master.pdf");
      const failure = await rejectionOf(sign(encrypted, signers.rsa ?? ""), JobFailure);
      expect(failure.code).toBe("password_required");
    });
  });
});
