import { Type } from "@sinclair/typebox";
import { optionsObject, stringEnum, withDefault } from "../schema-helpers.js";

export const PdfToExcelOptions = optionsObject(
  {
    mode: withDefault(
      stringEnum(
        ["tables", "pages"],
        "tables: one sheet per detected table (the job fails with no_tables when there is none); " +
          "pages: one sheet per page with all its text.",
      ),
      "tables",
    ),
  },
  "Options of PDF to Excel.",
);

export const pdfaLevels = ["1", "2", "3"] as const;
export type PdfaLevel = (typeof pdfaLevels)[number];

/**
 * The spec lists the levels as "1, 2, 3" and clients send them both ways, so the integers are
 * accepted too; validateOptions turns them into the strings before ajv runs.
 */
const pdfaLevel = Type.Unsafe<PdfaLevel>({
  type: ["string", "integer"],
  enum: [...pdfaLevels, 1, 2, 3],
  description:
    'PDF/A conformance level: "1" for PDF/A-1b, "2" for PDF/A-2b, "3" for PDF/A-3b. ' +
    "The integers 1, 2 and 3 are accepted too and normalised to the strings.",
});

export const PdfToPdfaOptions = optionsObject(
  { level: withDefault(pdfaLevel, "2") },
  "Options of PDF to PDF/A.",
);
