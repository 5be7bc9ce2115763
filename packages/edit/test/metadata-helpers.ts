import { access } from "node:fs/promises";
import { join } from "node:path";
import { tool } from "./helpers.js";

/** What exiftool reads from a file, by "Group:Tag" (PDF: the Info dictionary, XMP-dc, XMP-xmp, …). */
export async function exiftool(path: string): Promise<Record<string, unknown>> {
  const result = await tool("exiftool", ["-j", "-G1", "-a", path]);
  if (result.code !== 0) throw new Error(`exiftool failed: ${result.stderr}`);
  const [tags] = JSON.parse(result.stdout) as Record<string, unknown>[];
  return tags ?? {};
}

/** pdfinfo's "Key: value" lines (the Info dictionary), values in UTF-8. */
export async function pdfinfo(path: string): Promise<Record<string, string>> {
  const result = await tool("pdfinfo", ["-enc", "UTF-8", path]);
  const entries: Record<string, string> = {};
  for (const line of result.stdout.split("\n")) {
    const match = /^([A-Za-z ]+):\s*(.*)$/.exec(line);
    if (match?.[1] !== undefined) entries[match[1]] = match[2] ?? "";
  }
  return entries;
}

/** The XMP packet as poppler prints it (`pdfinfo -meta`), "" when there is none. */
export async function xmpText(path: string): Promise<string> {
  return (await tool("pdfinfo", ["-meta", path])).stdout;
}

/** The Info entry as qpdf prints it: "(ASCII)" or "<feff…>" for UTF-16BE with its byte order mark. */
export async function rawInfoEntry(path: string, key: string): Promise<string | undefined> {
  const trailer = (await tool("qpdf", ["--show-object=trailer", path])).stdout;
  const reference = /\/Info (\d+) 0 R/.exec(trailer)?.[1];
  if (reference === undefined) return undefined;
  const info = (await tool("qpdf", [`--show-object=${reference}`, path])).stdout;
  return new RegExp(`/${key} (\\([^)]*\\)|<[0-9a-f]*>)`).exec(info)?.[1];
}

/** An exiftool date ("2026:01:02 03:04:05+01:00" or "…Z") as milliseconds since the epoch. */
export function exifInstant(value: unknown): number {
  const match = /^(\d{4}):(\d{2}):(\d{2}) (\d{2}):(\d{2}):(\d{2})(Z|[+-]\d{2}:\d{2})$/.exec(String(value));
  if (match === null) return Number.NaN;
  const [, year, month, day, hour, minute, second, zone] = match;
  return Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second}${zone}`);
}

const preflightJars = [
  "preflight.jar",
  "pdfbox2.jar",
  "fontbox2.jar",
  "xmpbox.jar",
  "commons-logging.jar",
  "javax.activation.jar",
  "jaxb-api.jar",
].map((jar) => join("/usr/share/java", jar));

/** True when Apache PDFBox Preflight (PDF/A-1b) is installed here. */
export async function hasPreflight(): Promise<boolean> {
  try {
    await Promise.all(preflightJars.map((jar) => access(jar)));
    return true;
  } catch {
    return false;
  }
}

/** Apache PDFBox Preflight's verdict on one file: "" when it is valid PDF/A-1b, else its report. */
export async function preflightProblems(path: string): Promise<string> {
  const result = await tool("java", [
    "-cp",
    preflightJars.join(":"),
    "org.apache.pdfbox.preflight.Validator_A1b",
    path,
  ]);
  return result.stdout.includes("is a valid PDF/A-1b file") ? "" : `${result.stdout}${result.stderr}`;
}
