import "reflect-metadata";
import { execFileSync } from "node:child_process";
import { webcrypto } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type CryptoKeyPair = webcrypto.CryptoKeyPair;
type CryptoKey = webcrypto.CryptoKey;

/** Signers made for the tests: a root CA and the certificates it issues, packed as OpenSSL exports them. */
export type KeyKind = "rsa" | "ec256" | "ec384";

const algorithms = {
  rsa: {
    name: "RSASSA-PKCS1-v1_5",
    hash: "SHA-256",
    publicExponent: new Uint8Array([1, 0, 1]),
    modulusLength: 2048,
  },
  ec256: { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" },
  ec384: { name: "ECDSA", namedCurve: "P-384", hash: "SHA-384" },
} as const;

const day = 24 * 60 * 60 * 1000;

export interface TestRoot {
  certificate: x509.X509Certificate;
  keys: CryptoKeyPair;
  pemPath: string;
}

export interface LeafSpec {
  subject: string;
  kind?: KeyKind;
  /** Days from now; default -1 and 365. */
  validFrom?: number;
  validTo?: number;
  keyUsage?: number;
  /** A time-stamp authority's certificate: extended key usage timeStamping, critical (RFC 3161). */
  timeStamping?: boolean;
}

async function keysFor(kind: KeyKind): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(algorithms[kind], true, ["sign", "verify"])) as CryptoKeyPair;
}

async function keyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", key));
  const body = der.toString("base64").replace(/.{64}/g, "$&\n");
  return `-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----\n`;
}

export async function makeRoot(
  dir: string,
  name = "CN=octavo Test Root CA,O=octavo tests",
): Promise<TestRoot> {
  const keys = await keysFor("rsa");
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name,
    notBefore: new Date(Date.now() - 2 * day),
    notAfter: new Date(Date.now() + 3650 * day),
    signingAlgorithm: algorithms.rsa,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 1, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  const pemPath = join(dir, "root.pem");
  await writeFile(pemPath, certificate.toString("pem"));
  return { certificate, keys, pemPath };
}

let serial = 2;

/**
 * A certificate the root issues, written as a PKCS#12 file with its key and the root: OpenSSL 3's default
 * encryption (AES-256, PBKDF2), or with `legacy` the 3DES and RC2 of older exporters.
 */
export async function makeSigner(
  dir: string,
  root: TestRoot,
  spec: LeafSpec,
  p12: { password: string; legacy?: boolean; file: string },
): Promise<string> {
  const kind = spec.kind ?? "rsa";
  const keys = await keysFor(kind);
  serial += 1;
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serial.toString(16).padStart(2, "0"),
    subject: spec.subject,
    issuer: root.certificate.subject,
    notBefore: new Date(Date.now() + (spec.validFrom ?? -1) * day),
    notAfter: new Date(Date.now() + (spec.validTo ?? 365) * day),
    signingAlgorithm: algorithms.rsa,
    publicKey: keys.publicKey,
    signingKey: root.keys.privateKey,
    extensions: [
      new x509.KeyUsagesExtension(
        spec.keyUsage ?? x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation,
        true,
      ),
      ...(spec.timeStamping ? [new x509.ExtendedKeyUsageExtension(["1.3.6.1.5.5.7.3.8"], true)] : []),
    ],
  });
  const keyPath = join(dir, `${p12.file}.key.pem`);
  const certPath = join(dir, `${p12.file}.pem`);
  await writeFile(keyPath, await keyPem(keys.privateKey));
  await writeFile(certPath, certificate.toString("pem"));
  const out = join(dir, p12.file);
  execFileSync("openssl", [
    "pkcs12",
    "-export",
    "-inkey",
    keyPath,
    "-in",
    certPath,
    "-certfile",
    root.pemPath,
    "-passout",
    `pass:${p12.password}`,
    "-out",
    out,
    ...(p12.legacy ? ["-legacy"] : []),
  ]);
  return out;
}

/** A PKCS#12 file whose key belongs to no certificate in it. */
export function mismatchedP12(dir: string, otherKeyPem: string, certPem: string, password: string): string {
  const out = join(dir, "mismatched.p12");
  execFileSync("openssl", [
    "pkcs12",
    "-export",
    "-inkey",
    otherKeyPem,
    "-certfile",
    certPem,
    "-nocerts",
    "-passout",
    `pass:${password}`,
    "-out",
    out,
  ]);
  return out;
}

export { x509 };
