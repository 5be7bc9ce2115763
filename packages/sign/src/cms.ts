import { createHash, webcrypto, type X509Certificate } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import type { SigningIdentity } from "./pkcs12.js";
import type { SigningAlgorithm } from "./signer-checks.js";

export const oids = {
  data: "1.2.840.113549.1.7.1",
  signedData: "1.2.840.113549.1.7.2",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  signingTime: "1.2.840.113549.1.9.5",
  signingCertificateV2: "1.2.840.113549.1.9.16.2.47",
  signatureTimeStampToken: "1.2.840.113549.1.9.16.2.14",
  sha256: "2.16.840.1.101.3.4.2.1",
} as const;

type EngineCrypto = ConstructorParameters<typeof pkijs.CryptoEngine>[0]["crypto"];
type PkijsKey = Parameters<pkijs.SignedData["sign"]>[0];

// Node's WebCrypto, the one PKI.js signs and verifies with.
const engine = new pkijs.CryptoEngine({ name: "node", crypto: webcrypto as unknown as EngineCrypto });
pkijs.setEngine("node", engine);

const nodeDigestNames = { "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512" } as const;

/** The digest of the signed byte ranges, in the signer's digest. */
export function digestOf(parts: readonly Uint8Array[], algorithm: SigningAlgorithm): Buffer {
  const hash = createHash(nodeDigestNames[algorithm.digest]);
  for (const part of parts) hash.update(part);
  return hash.digest();
}

/**
 * A detached CMS SignedData over a document digest, as PAdES baseline B-B has it (ETSI EN 319 142-1):
 * signed attributes content-type, message-digest and signing-certificate-v2, and no signing-time (the
 * claimed time is the signature dictionary's /M). The signer's certificate and the others of its file go
 * in the certificates set, for a verifier to build the chain.
 */
export async function signedData(
  identity: SigningIdentity,
  algorithm: SigningAlgorithm,
  documentDigest: Uint8Array,
): Promise<pkijs.SignedData> {
  const certificate = pkijs.Certificate.fromBER(identity.certificate.raw);
  const others = identity.others.map((other) => pkijs.Certificate.fromBER(other.raw));
  const attributes = [
    new pkijs.Attribute({
      type: oids.contentType,
      values: [new asn1js.ObjectIdentifier({ value: oids.data })],
    }),
    new pkijs.Attribute({
      type: oids.messageDigest,
      values: [new asn1js.OctetString({ valueHex: toArrayBuffer(documentDigest) })],
    }),
    new pkijs.Attribute({
      type: oids.signingCertificateV2,
      values: [signingCertificateV2(identity.certificate, certificate)],
    }),
  ];
  const data = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: oids.data }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({
          issuer: certificate.issuer,
          serialNumber: certificate.serialNumber,
        }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes }),
      }),
    ],
    certificates: [certificate, ...others],
  });
  const key = await webcrypto.subtle.importKey(
    "pkcs8",
    identity.key.export({ format: "der", type: "pkcs8" }),
    algorithm.importParams,
    false,
    ["sign"],
  );
  await data.sign(key as unknown as PkijsKey, 0, algorithm.digest);
  return data;
}

/** Adds PAdES B-T's signature time-stamp, a token over the signature value, as an unsigned attribute. */
export function addSignatureTimestamp(data: pkijs.SignedData, token: pkijs.ContentInfo): void {
  const signer = data.signerInfos[0];
  if (signer === undefined) throw new Error("the SignedData has no signer");
  signer.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
    type: 1,
    attributes: [new pkijs.Attribute({ type: oids.signatureTimeStampToken, values: [token.toSchema()] })],
  });
}

/** The signer's signature value: what a signature time-stamp stamps. */
export function signatureValue(data: pkijs.SignedData): Uint8Array {
  const signer = data.signerInfos[0];
  if (signer === undefined) throw new Error("the SignedData has no signer");
  return new Uint8Array(signer.signature.valueBlock.valueHexView);
}

/** The DER of the ContentInfo that wraps `data`: what goes into the signature's /Contents. */
export function encodeSignedData(data: pkijs.SignedData): Uint8Array {
  const info = new pkijs.ContentInfo({ contentType: oids.signedData, content: data.toSchema(true) });
  return new Uint8Array(info.toSchema().toBER(false));
}

/**
 * SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 } with one ESSCertIDv2: the SHA-256 of
 * the signer's certificate (the default hash, so its identifier is left out, as DER requires) and its
 * issuer and serial number (RFC 5035), binding the signature to that one certificate.
 */
function signingCertificateV2(raw: X509Certificate, certificate: pkijs.Certificate): asn1js.Sequence {
  const certHash = createHash("sha256").update(raw.raw).digest();
  const directoryName = new asn1js.Constructed({
    idBlock: { tagClass: 3, tagNumber: 4 },
    value: [certificate.issuer.toSchema()],
  });
  const issuerSerial = new asn1js.Sequence({
    value: [new asn1js.Sequence({ value: [directoryName] }), certificate.serialNumber],
  });
  const essCertIdV2 = new asn1js.Sequence({
    value: [new asn1js.OctetString({ valueHex: toArrayBuffer(certHash) }), issuerSerial],
  });
  return new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] });
}

export function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}
