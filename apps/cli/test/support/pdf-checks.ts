import { execFile } from "node:child_process";
import { promisify } from "node:util";

const exec = promisify(execFile);

/** Independent judges of an output: qpdf and poppler, never the engine that wrote it. */
async function runTool(program: string, args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await exec(program, args, { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string };
    return { code: typeof failure.code === "number" ? failure.code : -1, stdout: failure.stdout ?? "" };
  }
}

export async function pageCount(path: string, password?: string): Promise<number> {
  const args =
    password === undefined ? ["--show-npages", path] : [`--password=${password}`, "--show-npages", path];
  const { code, stdout } = await runTool("qpdf", args);
  if (code !== 0 && code !== 3) throw new Error(`qpdf cannot count the pages of ${path} (exit ${code})`);
  return Number(stdout.trim());
}

/** qpdf --check (opened with the password, for an encrypted file): 0 = clean, 3 = warnings only; 2 = errors. */
export async function qpdfCheck(path: string, password?: string): Promise<number> {
  const args = password === undefined ? ["--check", path] : [`--password=${password}`, "--check", path];
  return (await runTool("qpdf", args)).code;
}

export async function requiresPassword(path: string): Promise<boolean> {
  return (await runTool("qpdf", ["--requires-password", path])).code === 0;
}

export async function encryptionSummary(path: string, password: string): Promise<string> {
  return (await runTool("qpdf", [`--password=${password}`, "--show-encryption", path])).stdout;
}

/** Each page's rotation as poppler reports it. */
export async function pageRotations(path: string): Promise<number[]> {
  const { stdout } = await runTool("pdfinfo", ["-f", "1", "-l", "100000", path]);
  return [...stdout.matchAll(/^Page\s+\d+\s+rot:\s+(\d+)/gm)].map((match) => Number(match[1]));
}

export async function textLength(path: string, password?: string): Promise<number> {
  const args = password === undefined ? [path, "-"] : ["-upw", password, path, "-"];
  const { stdout } = await runTool("pdftotext", args);
  return stdout.replace(/\s+/g, "").length;
}

/** The part names of an OOXML package (DOCX, PPTX, XLSX); throws when unzip finds it damaged. */
export async function zipParts(path: string): Promise<string[]> {
  await exec("unzip", ["-tq", path]);
  const { stdout } = await exec("unzip", ["-Z1", path]);
  return stdout.trim().split("\n");
}

/**
 * The text pdftotext reads: in layout order, or in the order the content streams draw it (`raw`),
 * where text stamped over a page comes after the page's own instead of between its words.
 */
export async function pdfText(path: string, order: "layout" | "raw" = "layout"): Promise<string> {
  return (await runTool("pdftotext", [`-${order}`, path, "-"])).stdout;
}

/** pdfinfo's fields (Info dictionary and page facts), e.g. { Title: "…", Pages: "4" }. */
export async function pdfInfo(path: string, ...args: string[]): Promise<Record<string, string>> {
  const { stdout } = await runTool("pdfinfo", [...args, path]);
  // Indented lines describe a PDF/A or PDF/X subtype ("    Title: ISO 15930 …"), not the document.
  return Object.fromEntries(
    stdout.split("\n").flatMap((line) => {
      const match = /^(\S[^:]*):\s*(.*)$/.exec(line);
      return match ? [[match[1] ?? "", match[2] ?? ""]] : [];
    }),
  );
}

/** The XMP packet as poppler reads it (`pdfinfo -meta`), or "" when there is none. */
export async function xmpOf(path: string): Promise<string> {
  return (await runTool("pdfinfo", ["-meta", path])).stdout;
}

/** Each page's visible size in points as the reader sees it (crop box, rotation applied), by poppler. */
export async function visiblePageSizes(path: string): Promise<{ width: number; height: number }[]> {
  const { stdout } = await runTool("pdfinfo", ["-f", "1", "-l", "100000", path]);
  const sizes = [...stdout.matchAll(/^Page\s+\d+\s+size:\s+([\d.]+) x ([\d.]+) pts/gm)];
  const rotations = [...stdout.matchAll(/^Page\s+\d+\s+rot:\s+(\d+)/gm)].map((match) => Number(match[1]));
  return sizes.map((match, index) => {
    const [width, height] = [Number(match[1]), Number(match[2])];
    return (rotations[index] ?? 0) % 180 === 0 ? { width, height } : { width: height, height: width };
  });
}

/** qpdf's view of the form fields, and the length of each page's /Annots array. */
export async function formsAndAnnotations(path: string): Promise<{ fields: number; annotations: number[] }> {
  const { stdout } = await runTool("qpdf", [
    "--json",
    "--json-key=acroform",
    "--json-key=pages",
    "--json-key=qpdf",
    path,
  ]);
  const json = JSON.parse(stdout) as {
    acroform: { fields: unknown[] };
    pages: { object: string }[];
    qpdf: [unknown, Record<string, { value?: unknown }>];
  };
  const objects = json.qpdf[1];
  const resolved = (item: unknown): unknown =>
    typeof item === "string" && / R$/.test(item) ? objects[`obj:${item}`]?.value : item;
  const annotations = json.pages.map((page) => {
    const dictionary = resolved(page.object) as Record<string, unknown> | undefined;
    const annots = resolved(dictionary?.["/Annots"]);
    return Array.isArray(annots) ? annots.length : 0;
  });
  return { fields: json.acroform.fields.length, annotations };
}
