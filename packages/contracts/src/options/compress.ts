import { Type } from "@sinclair/typebox";
import { optionsObject, stringEnum, withDefault } from "../schema-helpers.js";

export const CompressOptions = optionsObject(
  {
    level: withDefault(
      stringEnum(["low", "recommended", "extreme"], "Compression strength; ignored when targetKB is set."),
      "recommended",
    ),
    targetKB: Type.Optional(
      Type.Integer({
        minimum: 20,
        maximum: 100_000,
        description: "Try to get the file under this size, in kilobytes. No default.",
      }),
    ),
    grayscale: withDefault(Type.Boolean({ description: "Convert the document to grayscale." }), false),
  },
  "Options of Compress PDF.",
);
