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

export async function isEncrypted(path: string): Promise<boolean> {
  return (await runTool("qpdf", ["--is-encrypted", path])).code === 0;
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
