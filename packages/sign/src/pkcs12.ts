import { createPrivateKey, type KeyObject, X509Certificate } from "node:crypto";
import { detailOf, JobFailure, run } from "@octavo/engines";

/** The signer's key and certificate, and the certificates it came with (its issuers, as a rule). */
export interface SigningIdentity {
  key: KeyObject;
  certificate: X509Certificate;
  /** The other certificates of the file, in its order. */
  others: X509Certificate[];
}

export interface Pkcs12Source {
  path: string;
  /** The client's file name, for messages. */
  name: string;
  password: string;
}

const pemBlock = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n[\s\S]*?\r?\n-----END \1-----/g;

// A PKCS#12 file of a few certificates is a few KiB; the limits only stop a hostile file.
const opensslLimits = { timeoutMs: 20_000, memoryBytes: 512 * 1024 ** 2, maxOutputBytes: 1024 ** 2 };

/**
 * Reads a PKCS#12 (.p12, .pfx) file with OpenSSL in a process of its own under limits: the file is the
 * client's, and OpenSSL reads every encryption such files use (AES, and the 3DES and RC2 of older
 * exporters, through its legacy provider). The password reaches it as a 0600 file in `scratchDir`, never on
 * its command line; the key comes back on its stdout and only ever lives in this process's memory.
 */
export async function readPkcs12(
  source: Pkcs12Source,
  scratchDir: string,
  signal?: AbortSignal,
): Promise<SigningIdentity> {
  if (/[\r\n]/.test(source.password)) {
    // OpenSSL reads the password file's first line only.
    throw new JobFailure(
      "invalid_input",
      "options.certificatePassword holds a line break, which no PKCS#12 password can; send it without.",
    );
  }
  let result = await opensslPkcs12(source, scratchDir, [], signal);
  if (result.exitCode !== 0 && /unsupported|legacy|RC2/i.test(result.stderr)) {
    result = await opensslPkcs12(source, scratchDir, ["-legacy"], signal);
  }
  if (result.timedOut || result.aborted) {
    throw new JobFailure("timeout", `Reading ${source.name} took too long and was stopped.`);
  }
  if (result.exitCode !== 0) throw unreadable(source.name, result.stderr);
  return identityOf(source.name, result.stdout);
}

function opensslPkcs12(source: Pkcs12Source, scratchDir: string, extra: string[], signal?: AbortSignal) {
  // An empty password cannot go through a file (OpenSSL reads a line from it), and is no secret.
  const passin = source.password === "" ? "pass:" : "file:{{password}}";
  const args = ["pkcs12", "-in", source.path, "-passin", passin, "-nodes", ...extra];
  if (source.password === "") return run("openssl", args, { ...opensslLimits, signal });
  const secrets = { dir: scratchDir, files: { password: source.password } };
  return run("openssl", args, { ...opensslLimits, signal, secrets });
}

function unreadable(name: string, stderr: string): JobFailure {
  if (/mac verify (error|failure)|invalid password/i.test(stderr)) {
    return new JobFailure(
      "invalid_input",
      `${name} could not be opened with the password in options.certificatePassword; send the password the certificate was exported with.`,
    );
  }
  return new JobFailure(
    "invalid_input",
    `${name} is not a PKCS#12 certificate file OpenSSL can read; export the certificate with its private key as .p12 or .pfx.`,
    { detail: detailOf(stderr) },
  );
}

function identityOf(name: string, pem: string): SigningIdentity {
  const blocks = [...pem.matchAll(pemBlock)];
  const keys = blocks
    .filter((block) => block[1] === "PRIVATE KEY")
    .map((block) => createPrivateKey(block[0]));
  const certificates = blocks
    .filter((block) => block[1] === "CERTIFICATE")
    .map((block) => new X509Certificate(block[0]));
  const key = keys[0];
  if (key === undefined || keys.length > 1) {
    throw new JobFailure(
      "invalid_input",
      `${name} holds ${keys.length === 0 ? "no private key" : `${keys.length} private keys`}; a signing certificate file holds exactly one, with its certificate.`,
    );
  }
  const certificate = certificates.find((candidate) => candidate.checkPrivateKey(key));
  if (certificate === undefined) {
    throw new JobFailure(
      "invalid_input",
      certificates.length === 0
        ? `${name} holds a private key but no certificate; export the certificate with its key.`
        : `The private key in ${name} does not match its certificate${certificates.length > 1 ? "s" : ""}; export the certificate together with its own key.`,
    );
  }
  return { key, certificate, others: certificates.filter((other) => other !== certificate) };
}
