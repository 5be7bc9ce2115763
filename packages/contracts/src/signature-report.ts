import { type Static, Type } from "@sinclair/typebox";
import { livemodeMember } from "./test-output.js";

/*
 * What Verify signatures reports (report.json, and the done job's `verification`): one entry per signature,
 * in the order the file holds them. Nothing is fetched: revocation is reported as far as the file embeds it.
 */

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const instant = (description: string) => nullable(Type.String({ format: "date-time", description }));

const LaterRevision = Type.Object(
  {
    endsAt: Type.Integer({ description: "The byte offset where the revision ends." }),
    changes: Type.Array(
      Type.String({
        description:
          "What it changes: signature, form field, form, annotation, appearance, validation data, " +
          "metadata, page content, document structure, other.",
      }),
    ),
    allowed: Type.Boolean({
      description:
        "Every change is one a signed file may take (signatures, form filling, annotations where the " +
        "certification allows them, validation data).",
    }),
  },
  { additionalProperties: false },
);

export const SignatureEntry = Type.Object(
  {
    fieldName: Type.String({ description: "The signature field's full name." }),
    subFilter: nullable(Type.String({ description: "e.g. ETSI.CAdES.detached, adbe.pkcs7.detached." })),
    digestAlgorithm: nullable(Type.String({ description: "e.g. SHA-256." })),
    signer: Type.Union([
      Type.Object(
        {
          subject: Type.String(),
          issuer: Type.String(),
          serialNumber: Type.String({ description: "Hexadecimal." }),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    signingTime: Type.Object(
      {
        claimed: instant("The time the signer's computer claims (signed attribute or /M)."),
        timestamp: instant("The time a time-stamp authority vouches for (PAdES B-T), when there is one."),
      },
      { additionalProperties: false },
    ),
    reason: nullable(Type.String()),
    location: nullable(Type.String()),
    integrity: Type.Object(
      {
        valid: Type.Boolean({
          description:
            "The signed bytes match the signature, and the /ByteRange leaves out exactly the signature itself.",
        }),
        problem: nullable(Type.String({ description: "Why not, when not." })),
      },
      { additionalProperties: false },
    ),
    coverage: Type.Object(
      {
        wholeFile: Type.Boolean({ description: "The signature covers the file as it is." }),
        signedBytes: Type.Integer(),
        fileBytes: Type.Integer(),
        laterRevisions: Type.Array(LaterRevision, {
          description: "The incremental updates after the signed revision, each classed.",
        }),
      },
      { additionalProperties: false },
    ),
    certification: Type.Union([
      Type.Object(
        { permissions: Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)]) },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    certificate: Type.Union([
      Type.Object(
        {
          notBefore: Type.String({ format: "date-time" }),
          notAfter: Type.String({ format: "date-time" }),
          validAtSigningTime: Type.Boolean(),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    chain: Type.Object(
      {
        trusted: Type.Boolean({
          description: "The chain ends at a root of Debian's ca-certificates or one of the `roots` uploaded.",
        }),
        path: Type.Array(Type.String(), { description: "Subjects from the signer to the root." }),
        problem: nullable(Type.String()),
      },
      { additionalProperties: false },
    ),
    timestamp: Type.Object(
      {
        present: Type.Boolean(),
        valid: Type.Union([Type.Boolean(), Type.Null()]),
      },
      { additionalProperties: false },
    ),
    revocation: Type.Object(
      {
        embedded: Type.Boolean({ description: "The file or the signature embeds OCSP answers or CRLs." }),
        fetched: Type.Literal(false, { description: "Nothing is fetched from the network." }),
      },
      { additionalProperties: false },
    ),
    valid: Type.Boolean({
      description:
        "Intact, every later change allowed, the certificate valid at signing time and its chain trusted.",
    }),
  },
  { additionalProperties: false },
);

export const SignatureReport = Type.Object(
  {
    livemode: livemodeMember,
    file: Type.String({ description: "The input's name." }),
    signatures: Type.Array(SignatureEntry, { description: "Empty for a file without signatures." }),
  },
  { additionalProperties: false, description: "The signatures of a PDF and what each is worth." },
);

export type SignatureEntry = Static<typeof SignatureEntry>;
export type SignatureReport = Static<typeof SignatureReport>;
