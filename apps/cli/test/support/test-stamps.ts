import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { pageCount, zipParts } from "./pdf-checks.js";

const exec = promisify(execFile);

/** What every output of a test job says, where its reader sees it. */
export const stamp = "octavo test mode";

const oneLine = (text: string) => text.replace(/\s+/g, " ");
const partText = async (path: string, part: string) =>
  (await exec("unzip", ["-p", path, part], { maxBuffer: 256 * 1024 * 1024 })).stdout;

/**
 * Where an output of a test job lacks the stamp, judged by tools other than the one that stamped it:
 * poppler's text of each PDF page, Tesseract's reading of an image, the parts of an Office package a reader
 * shows as its header (or on each slide), a JSON document's members, a text's first line. Empty: stamped.
 */
export async function missingStamps(path: string, contentType: string, password?: string): Promise<string[]> {
  const type = contentType.split(";")[0] ?? "";
  if (type === "application/pdf") {
    const pages = await pageCount(path, password);
    const args = password === undefined ? [path, "-"] : ["-upw", password, path, "-"];
    const texts = (await exec("pdftotext", args, { maxBuffer: 64 * 1024 * 1024 })).stdout.split("\f");
    // Once a page: an operation whose output is stamped must not be stamped again on its inputs.
    return Array.from(
      { length: pages },
      (_, index) => oneLine(texts[index] ?? "").split(stamp).length - 1,
    ).flatMap((count, index) => (count === 1 ? [] : [`page ${index + 1} (${count} stamps)`]));
  }
  if (type.startsWith("image/")) {
    const { stdout } = await exec("tesseract", [path, "-"]);
    return oneLine(stdout).toLowerCase().includes(stamp)
      ? []
      : [`the image (Tesseract read: ${oneLine(stdout)})`];
  }
  if (type.endsWith(".wordprocessingml.document")) {
    const headers = (await zipParts(path)).filter((part) => /^word\/header[^/]*\.xml$/.test(part));
    const texts = await Promise.all(headers.map((part) => partText(path, part)));
    const body = await partText(path, "word/document.xml");
    return texts.some((text) => text.includes(stamp)) && body.includes("headerReference")
      ? []
      : ["a header the document refers to"];
  }
  if (type.endsWith(".spreadsheetml.sheet")) {
    const sheets = (await zipParts(path)).filter((part) => /^xl\/worksheets\/[^/]+\.xml$/.test(part));
    const unmarked = [];
    for (const sheet of sheets) {
      if (!/<oddHeader>[^<]*octavo test mode/.test(await partText(path, sheet))) unmarked.push(sheet);
    }
    return sheets.length === 0 ? ["a sheet"] : unmarked;
  }
  if (type.endsWith(".presentationml.presentation")) {
    const slides = (await zipParts(path)).filter((part) => /^ppt\/slides\/[^/]+\.xml$/.test(part));
    const unmarked = [];
    for (const slide of slides) {
      if (!(await partText(path, slide)).includes(`<a:t>${stamp}</a:t>`)) unmarked.push(slide);
    }
    return slides.length === 0 ? ["a slide"] : unmarked;
  }
  const text = await readFile(path, "utf8");
  if (type === "application/json") {
    const document = JSON.parse(text) as Record<string, unknown>;
    return Object.keys(document)[0] === "livemode" && document.livemode === false
      ? []
      : ['"livemode": false'];
  }
  if (type === "text/markdown" || type === "text/plain") {
    return text.split("\n")[0]?.includes(stamp) ? [] : ["the first line"];
  }
  return [`a check for ${contentType}`];
}
