import type { webcrypto, X509Certificate } from "node:crypto";
import { JobFailure } from "@octavo/engines";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import type { SigningIdentity } from "./pkcs12.js";

/** The digest a key signs with: SHA-256, or the one that matches a larger curve's strength. */
export type DigestName = "SHA-256" | "SHA-384" | "SHA-512";

/** How the signer's key signs: the WebCrypto algorithm PKI.js is given, and its digest. */
export interface SigningAlgorithm {
  importParams: webcrypto.RsaHashedImportParams | webcrypto.EcKeyImportParams;
  digest: DigestName;
}

const curveDigests: Readonly<Record<string, DigestName>> = {
  prime256v1: "SHA-256",
  secp384r1: "SHA-384",
  secp521r1: "SHA-512",
};
const webCryptoCurves: Readonly<Record<string, string>> = {
  prime256v1: "P-256",
  secp384r1: "P-384",
  secp521r1: "P-521",
};

const keyUsageOid = "2.5.29.15";
const minimumRsaBits = 2048;

/**
 * Refuses a signer a verifier would reject, before anything is signed: a certificate outside its validity
 * period at `now`, one whose key usage forbids signatures, a key PAdES does not name (RSA of 2048 bits or
 * more, ECDSA on P-256, P-384 or P-521).
 */
export function checkSigner(identity: SigningIdentity, name: string, now: Date): SigningAlgorithm {
  const { certificate } = identity;
  checkValidity(certificate, name, now);
  checkKeyUsage(certificate, name);
  return signingAlgorithm(identity, name);
}

function checkValidity(certificate: X509Certificate, name: string, now: Date): void {
  const from = new Date(certificate.validFrom);
  const to = new Date(certificate.validTo);
  const subject = commonName(certificate);
  if (now < from) {
    throw new JobFailure(
      "invalid_input",
      `The certificate in ${name} (${subject}) is not valid before ${from.toISOString()}; sign with a certificate that is valid now.`,
    );
  }
  if (now > to) {
    throw new JobFailure(
      "invalid_input",
      `The certificate in ${name} (${subject}) expired on ${to.toISOString()}; sign with a certificate that is valid now.`,
    );
  }
}

function checkKeyUsage(certificate: X509Certificate, name: string): void {
  const parsed = pkijs.Certificate.fromBER(certificate.raw);
  const extension = parsed.extensions?.find((candidate) => candidate.extnID === keyUsageOid);
  // No key usage extension: RFC 5280 puts no limit on the key.
  if (extension === undefined) return;
  const bits = extension.parsedValue;
  const first = bits instanceof asn1js.BitString ? (bits.valueBlock.valueHexView[0] ?? 0) : 0;
  const digitalSignature = 0x80;
  const nonRepudiation = 0x40;
  if ((first & (digitalSignature | nonRepudiation)) === 0) {
    throw new JobFailure(
      "invalid_input",
      `The certificate in ${name} (${commonName(certificate)}) may not make signatures: its key usage has neither digitalSignature nor nonRepudiation. Sign with a certificate issued for signing.`,
    );
  }
}

function signingAlgorithm(identity: SigningIdentity, name: string): SigningAlgorithm {
  const { key } = identity;
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === "rsa") {
    if ((details.modulusLength ?? 0) < minimumRsaBits) {
      throw new JobFailure(
        "invalid_input",
        `The RSA key in ${name} has ${details.modulusLength} bits; signatures need ${minimumRsaBits} or more.`,
      );
    }
    return { importParams: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, digest: "SHA-256" };
  }
  const curve = details.namedCurve ?? "";
  const digest = curveDigests[curve];
  const namedCurve = webCryptoCurves[curve];
  if (key.asymmetricKeyType === "ec" && digest !== undefined && namedCurve !== undefined) {
    return { importParams: { name: "ECDSA", namedCurve }, digest };
  }
  const kind = key.asymmetricKeyType === "ec" ? `an EC key on ${curve}` : `a ${key.asymmetricKeyType} key`;
  throw new JobFailure(
    "invalid_input",
    `The certificate in ${name} has ${kind}; PDF signatures here take RSA (2048 bits or more) or ECDSA on P-256, P-384 or P-521.`,
  );
}

/** The subject's CN, else its whole subject: how a signer is named in messages and appearances. */
export function commonName(certificate: X509Certificate): string {
  const cn = certificate.subject.split("\n").find((part) => part.startsWith("CN="));
  return cn === undefined ? certificate.subject.replaceAll("\n", ", ") : cn.slice("CN=".length);
}
