import { mkdtemp } from "node:fs/promises";
import { join, resolve } from "node:path";
import { displayName } from "@octavo/engines";

/** "report.pdf" → "report.docx": the output is named like the client's file with the new extension. */
export function officeNameLike(clientName: string, extension: "docx" | "pptx" | "xlsx"): string {
  const base = displayName(clientName);
  const stem = base.replace(/\.[A-Za-z0-9]{1,5}$/, "");
  const safeStem = stem === "" || stem === "the file" ? "document" : stem;
  return `${safeStem}.${extension}`;
}

export const officeContentTypes = {
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
} as const;

/** A fresh directory for one output inside the job's work dir (the scratch dir is removed afterwards). */
export async function outputDir(workDir: string, operation: string): Promise<string> {
  return mkdtemp(join(resolve(workDir), `${operation}-`));
}
