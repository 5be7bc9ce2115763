import { X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import * as pkijs from "pkijs";
import { toArrayBuffer } from "./cms.js";

/** Debian's ca-certificates bundle: the roots a verifier trusts unless told otherwise. */
export const systemTrustStore = "/etc/ssl/certs/ca-certificates.crt";

const pemCertificate = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;

/** The DER certificates of a PEM bundle, or the one DER certificate `bytes` is. */
function derCertificates(bytes: Uint8Array): Buffer[] {
  const text = Buffer.from(bytes).toString("latin1");
  return text.includes("-----BEGIN CERTIFICATE-----")
    ? [...text.matchAll(pemCertificate)].map((match) => Buffer.from(match[1] ?? "", "base64"))
    : [Buffer.from(bytes)];
}

/**
 * The roots that may issue a certificate the signature carries: of Debian's bundle and the caller's
 * uploads, those whose subject is the issuer of one of them. Node's X.509 parser sorts the whole bundle
 * in a few milliseconds; only the candidates are parsed by PKI.js (all 144 took 300 ms).
 */
export async function candidateRoots(
  carried: pkijs.Certificate[],
  uploaded: Uint8Array[],
  bundle = systemTrustStore,
): Promise<pkijs.Certificate[]> {
  const issuers = new Set(
    carried.flatMap((certificate) => {
      const parsed = nodeCertificate(Buffer.from(certificate.toSchema().toBER(false)));
      return parsed === undefined ? [] : [parsed.issuer];
    }),
  );
  const system = await readFile(bundle).catch(() => new Uint8Array(0));
  const ders = [system, ...uploaded].flatMap(derCertificates);
  return ders.flatMap((der) => {
    const parsed = nodeCertificate(der);
    if (parsed === undefined || !issuers.has(parsed.subject)) return [];
    try {
      return [pkijs.Certificate.fromBER(toArrayBuffer(der))];
    } catch {
      return [];
    }
  });
}

function nodeCertificate(der: Buffer): X509Certificate | undefined {
  try {
    return new X509Certificate(der);
  } catch {
    return undefined;
  }
}

/** Whether the signer's certificate chains to a trusted root, as it stood at `when`. */
export interface ChainResult {
  trusted: boolean;
  /** Subjects from the signer up to the root, when a path was found. */
  path: string[];
  problem: string | undefined;
}

export function subjectOf(certificate: pkijs.Certificate): string {
  return nameOf(certificate.subject);
}

export function issuerOf(certificate: pkijs.Certificate): string {
  return nameOf(certificate.issuer);
}

/** "CN=…, O=…, C=…", in the certificate's order. */
function nameOf(name: pkijs.RelativeDistinguishedNames): string {
  return name.typesAndValues
    .map((entry) => `${shortNames[entry.type] ?? entry.type}=${entry.value.valueBlock.value}`)
    .join(", ");
}

const shortNames: Readonly<Record<string, string>> = {
  "2.5.4.3": "CN",
  "2.5.4.6": "C",
  "2.5.4.7": "L",
  "2.5.4.8": "ST",
  "2.5.4.10": "O",
  "2.5.4.11": "OU",
  "1.2.840.113549.1.9.1": "E",
  "2.5.4.5": "serialNumber",
};

/**
 * Builds and checks a path from `signer` through the certificates the signature carries to one of `roots`
 * (PKI.js's RFC 5280 path validation: signatures, validity at `when`, CA constraints). Nothing is fetched:
 * no missing issuer, and no revocation list or OCSP answer.
 */
export async function checkChain(
  signer: pkijs.Certificate,
  carried: pkijs.Certificate[],
  roots: pkijs.Certificate[],
  when: Date,
): Promise<ChainResult> {
  const others = carried.filter((certificate) => certificate !== signer);
  // PKI.js takes the end-entity certificate last.
  const engine = new pkijs.CertificateChainValidationEngine({
    trustedCerts: roots,
    certs: [...others, signer],
    checkDate: when,
  });
  try {
    const result = await engine.verify();
    const path = (result.certificatePath ?? []).map(subjectOf);
    return { trusted: result.result, path, problem: result.result ? undefined : result.resultMessage };
  } catch (error) {
    const message =
      error instanceof Error
        ? error.message
        : ((error as { resultMessage?: string }).resultMessage ?? String(error));
    return { trusted: false, path: [], problem: message };
  }
}
