import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, extname, join } from "node:path";
import { promisify } from "node:util";
import { corpusDir } from "@octavo/testing";

const execFileAsync = promisify(execFile);

export { corpusDir };

export function corpus(path: string): string {
  return join(corpusDir, path);
}

export async function workDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "octavo-pdfa-test-"));
}

export async function cleanup(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Every PDF of a corpus folder, as "folder/name.pdf". */
export async function corpusPdfs(folder: string): Promise<string[]> {
  return (await readdir(corpus(folder)))
    .filter((name) => name.endsWith(".pdf"))
    .sort()
    .map((name) => `${folder}/${name}`);
}

/** Office files LibreOffice opens without a password (the corpus also holds protected ones). */
export async function officeSources(): Promise<string[]> {
  return (await readdir(corpus("office")))
    .filter((name) => !name.endsWith(".pdf") && !/password|protected|Encrypted/i.test(name))
    .sort()
    .map((name) => `office/${name}`);
}

/**
 * Converts corpus office files to PDF with LibreOffice and returns the PDFs made, in the order of
 * `sources`. One soffice run takes every file whose name, less its extension, no other file of the run
 * has (x.doc and x.docx would overwrite each other's x.pdf); a cold LibreOffice start is most of a
 * small file's conversion.
 */
export async function officePdfs(sources: string[], dir: string): Promise<string[]> {
  const stem = (source: string) => basename(source, extname(source));
  const runs: string[][] = [];
  for (const source of sources) {
    const run = runs.find((files) => files.every((file) => stem(file) !== stem(source)));
    if (run) run.push(source);
    else runs.push([source]);
  }
  const made = new Map<string, string>();
  const profile = join(dir, "lo-profile");
  for (const [index, files] of runs.entries()) {
    const outdir = join(dir, `run-${index}`);
    await execFileAsync(
      "soffice",
      [
        "--headless",
        `-env:UserInstallation=file://${profile}`,
        "--convert-to",
        "pdf",
        "--outdir",
        outdir,
        ...files.map(corpus),
      ],
      { timeout: 180_000 * files.length },
    ).catch(() => undefined); // a file LibreOffice cannot convert is not an input of this test
    for (const source of files) {
      const pdf = join(outdir, `${stem(source)}.pdf`);
      if (
        await readFile(pdf).then(
          () => true,
          () => false,
        )
      )
        made.set(source, pdf);
    }
  }
  return sources.flatMap((source) => made.get(source) ?? []);
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

/**
 * Apache PDFBox Preflight 2.0.27 (PDF/A-1b) on many files in one JVM ("xml group" mode writes one report
 * next to the list file). Returns file path → error lines, empty when the file is valid.
 */
export async function preflight(paths: string[], dir: string): Promise<Map<string, string[]>> {
  const list = join(dir, "preflight-list.txt");
  await writeFile(list, `${paths.join("\n")}\n`);
  await execFileAsync(
    "java",
    ["-cp", preflightJars.join(":"), "org.apache.pdfbox.preflight.Validator_A1b", "xml", "group", list],
    { timeout: 600_000, maxBuffer: 64 * 1024 * 1024 },
  ).catch(() => undefined);
  const report = await readFile(`${list}.preflight.xml`, "utf8");
  const byName = new Map<string, string[]>();
  for (const match of report.matchAll(/<preflight name="([^"]+)">([\s\S]*?)<\/preflight>/g)) {
    const body = match[2] ?? "";
    const valid = body.includes('<isValid type="PDF/A1-b">true</isValid>');
    const errors = [...body.matchAll(/<code>([^<]*)<\/code>\s*<details>([^<]*)<\/details>/g)].map(
      (error) => `${error[1]} ${error[2]}`,
    );
    byName.set(match[1] ?? "", valid ? [] : errors.length > 0 ? errors : ["not valid"]);
  }
  return new Map(paths.map((path) => [path, byName.get(basename(path)) ?? ["no verdict"]]));
}

/** What poppler says: fonts not embedded (pdffonts emb column) and the XMP pdfaid entries (pdfinfo -meta). */
export async function poppler(
  path: string,
): Promise<{ unembedded: string[]; part?: string; conformance?: string }> {
  const fonts = (await execFileAsync("pdffonts", [path])).stdout.split("\n").slice(2).filter(Boolean);
  // Columns: name type encoding emb sub uni object ID; names and types may hold spaces, so count from the end.
  const unembedded = fonts.filter((line) => line.trim().split(/\s+/).at(-5) !== "yes");
  const meta = (await execFileAsync("pdfinfo", ["-meta", path], { maxBuffer: 16 * 1024 * 1024 })).stdout;
  const part = /pdfaid:part(?:>|=["'])\s*(\d)/.exec(meta)?.[1];
  const conformance = /pdfaid:conformance(?:>|=["'])\s*([A-Za-z])/.exec(meta)?.[1];
  return {
    unembedded,
    ...(part === undefined ? {} : { part }),
    ...(conformance === undefined ? {} : { conformance }),
  };
}

export async function pdftotext(path: string): Promise<string> {
  return (
    await execFileAsync("pdftotext", ["-q", "-enc", "UTF-8", path, "-"], { maxBuffer: 64 * 1024 * 1024 })
  ).stdout;
}
