import { Type } from "@sinclair/typebox";
import { integerEnum, optionsObject, stringEnum } from "../schema-helpers.js";
import { httpUrlPattern } from "./html-to-pdf.js";

const text = (maxLength: number, description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength, description }));

const appearancePositions = ["top-left", "top-right", "bottom-left", "bottom-right", "center"] as const;

const SignatureAppearance = Type.Object(
  {
    page: Type.Integer({ minimum: 1, description: "1-based page the signature is drawn on." }),
    rect: Type.Optional(
      Type.Array(Type.Number({ minimum: 0 }), {
        minItems: 4,
        maxItems: 4,
        description:
          "[x, y, width, height] in points from the top-left corner of the page as displayed (rotation " +
          "considered), inside the page. Omitted: position decides, with a 200 × 60 pt box.",
      }),
    ),
    position: Type.Optional(
      stringEnum(
        appearancePositions,
        "A corner or the centre of the page, 24 pt from the edges; default bottom-right.",
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      "A visible signature: a box with the signer's name, the date and the reason, and the `image` upload " +
      "when one is sent. Omitted: the signature is invisible (unless the field signed already has a box).",
  },
);

export const SignOptions = optionsObject(
  {
    certificatePassword: Type.String({
      minLength: 0,
      maxLength: 1024,
      description:
        "Password of the PKCS#12 file sent in the `certificate` field. Required (empty for a file without one). " +
        "It is used only inside the job's sandbox and is never stored with the job, logged or returned.",
    }),
    reason: text(200, "Why the document is signed (/Reason), e.g. Approved."),
    location: text(200, "Where it is signed (/Location)."),
    contactInfo: text(200, "How to reach the signer (/ContactInfo)."),
    fieldName: text(
      127,
      "The signature field to sign: an existing empty one, or a new field of this name. Omitted: a new " +
        "field Signature<n>.",
    ),
    certify: Type.Optional(
      integerEnum(
        [1, 2, 3],
        "A certification signature (DocMDP) allowing after it: 1 no change, 2 form filling and signing, 3 " +
          "also annotations. Omitted: an approval signature. Only the first signature of a file can certify.",
      ),
    ),
    timestampUrl: Type.Optional(
      Type.String({
        maxLength: 2048,
        pattern: httpUrlPattern,
        description:
          "An RFC 3161 time-stamp server: the signature becomes PAdES B-T. The address follows the same " +
          "outbound rules as URL inputs (public addresses only).",
      }),
    ),
    appearance: Type.Optional(SignatureAppearance),
  },
  "Options of Sign PDF.",
);
