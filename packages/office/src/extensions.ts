/** The spec's input extensions per conversion (word-to-pdf, powerpoint-to-pdf, excel-to-pdf). */
export const officeExtensions = {
  word: [".doc", ".docx", ".odt", ".rtf", ".txt"],
  powerpoint: [".ppt", ".pptx", ".odp", ".pps", ".ppsx"],
  excel: [".xls", ".xlsx", ".ods", ".csv"],
} as const;

export type OfficeFamily = keyof typeof officeExtensions;
export type OfficeExtension = (typeof officeExtensions)[OfficeFamily][number];

const families = Object.entries(officeExtensions) as [OfficeFamily, readonly string[]][];

export function familyOf(extension: string): OfficeFamily | undefined {
  return families.find(([, extensions]) => extensions.includes(extension))?.[0];
}

/** Formats that are ZIP packages (OOXML, ODF): anything else under these extensions is not the format. */
export const zipPackageExtensions: ReadonlySet<string> = new Set([
  ".docx",
  ".xlsx",
  ".pptx",
  ".ppsx",
  ".odt",
  ".ods",
  ".odp",
]);

/** Plain-text formats: LibreOffice is told the filter, the encoding and (CSV) the separator. */
export const textExtensions: ReadonlySet<string> = new Set([".txt", ".csv"]);
