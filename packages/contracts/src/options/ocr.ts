import { Type } from "@sinclair/typebox";
import { optionsObject, stringEnum, withDefault } from "../schema-helpers.js";

/** Tesseract language codes the service ships. */
export const ocrLanguages = [
  "eng",
  "spa",
  "por",
  "fra",
  "deu",
  "ita",
  "nld",
  "ind",
  "swa",
  "hin",
  "ara",
  "rus",
  "tur",
  "vie",
  "chi_sim",
  "jpn",
  "kor",
] as const;

export type OcrLanguage = (typeof ocrLanguages)[number];

/** The OCR languages option, English by default; PDF to Markdown takes it too. */
export function ocrLanguageList() {
  return withDefault(
    Type.Array(stringEnum(ocrLanguages, "An OCR language code."), {
      minItems: 1,
      maxItems: 3,
      uniqueItems: true,
      description: "OCR languages: 1 to 3 different language codes.",
    }),
    ["eng"],
  );
}

export const OcrOptions = optionsObject(
  {
    languages: ocrLanguageList(),
    deskew: withDefault(Type.Boolean({ description: "Straighten crooked scans." }), true),
    force: withDefault(Type.Boolean({ description: "Re-OCR pages that already contain text." }), false),
  },
  "Options of OCR PDF.",
);
