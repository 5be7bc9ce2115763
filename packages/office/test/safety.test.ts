import { access, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { run } from "@octavo/engines";
import { entityBombDocx, plainDocx, zipBombDocx } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OfficeConverter } from "../src/index.js";
import { removeLeftoverPipes } from "../src/profile.js";
import {
  docxWithLinkedImage,
  lowSecurityProfile,
  odtWithAutoRunMacro,
  odtWithLinkedImage,
} from "./fixtures.js";
import { pdfPages, pdfText, tempDir } from "./helpers.js";

const soffice = "/usr/lib/libreoffice/program/soffice";

let root: string;
let converter: OfficeConverter;

beforeAll(async () => {
  root = await tempDir();
  converter = new OfficeConverter({
    instances: 1,
    maxConversionsPerInstance: 100,
    conversionTimeoutMs: 60_000,
    workDir: join(root, "work"),
  });
});

afterAll(async () => {
  await converter.close();
});

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe("LibreOffice has no network", () => {
  const requests: string[] = [];
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests.push(request.url ?? "");
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("never fetches a linked image, which a plain LibreOffice does fetch", async () => {
    const dir = join(root, "linked");
    await mkdir(dir);
    const odt = join(dir, "linked.odt");
    const docx = join(dir, "linked.docx");
    await odtWithLinkedImage(odt, `${base}/from-odt.png`);
    await docxWithLinkedImage(docx, `${base}/from-docx.png`);

    // Control: the same files through a plain, cold LibreOffice on this machine do reach the server, so
    // the documents really make LibreOffice fetch.
    const control = await run(
      soffice,
      [
        `-env:UserInstallation=${pathToFileURL(join(dir, "control-profile")).href}`,
        "--headless",
        "--convert-to",
        "pdf",
        "--outdir",
        join(dir, "control"),
        odt,
        docx,
      ],
      { timeoutMs: 90_000, memoryBytes: null },
    );
    expect(control.exitCode).toBe(0);
    expect(requests).toEqual(expect.arrayContaining(["/from-odt.png", "/from-docx.png"]));

    requests.length = 0;
    const out = join(dir, "out");
    await mkdir(out);
    for (const path of [odt, docx]) {
      const output = await converter.convert({ path, name: path.split("/").pop() ?? path }, out);
      expect(await pdfText(output.path)).toContain("A picture linked from the network follows.");
    }
    expect(requests).toEqual([]);
  });
});

describe("no macro ever runs", () => {
  it("does not run a Basic macro bound to the open-document event", async () => {
    const dir = join(root, "macro");
    await mkdir(join(dir, "control-profile", "user"), { recursive: true });
    const marker = join(dir, "the-macro-ran.txt");
    const document = join(dir, "auto-run.odt");
    await odtWithAutoRunMacro(document, marker);

    // Control: opened in a LibreOffice whose macro security is "low", the macro runs and writes the marker.
    await lowSecurityProfile(join(dir, "control-profile", "user"));
    const stop = new AbortController();
    const opened = run(
      soffice,
      [
        `-env:UserInstallation=${pathToFileURL(join(dir, "control-profile")).href}`,
        "--headless",
        "--norestore",
        document,
      ],
      { timeoutMs: 60_000, memoryBytes: null, signal: stop.signal },
    );
    // The macro creates the marker, then writes it: wait for the text, or a stop in between leaves it empty.
    const written = async () =>
      (await exists(marker)) && (await readFile(marker, "utf8")).includes("the macro ran");
    for (let waited = 0; waited < 60_000 && !(await written()); waited += 250) {
      await delay(250); // polling the marker file, within the loop's deadline
    }
    stop.abort();
    await opened;
    // The killed control leaves its single-instance socket in /tmp.
    await removeLeftoverPipes("-", pathToFileURL(join(dir, "control-profile")).href);
    expect(await readFile(marker, "utf8")).toContain("the macro ran");

    // The converter: same document, marker removed first. The PDF is made, the macro never runs.
    await rm(marker);
    const out = join(dir, "out");
    await mkdir(out);
    const output = await converter.convert({ path: document, name: "auto-run.odt" }, out);
    expect(await pdfPages(output.path)).toBe(1);
    await delay(1_000); // a macro bound to a late event would have written the marker by now
    expect(await exists(marker)).toBe(false);
  });

  it("seeds every profile with macro security 'very high' and macros disabled", async () => {
    const xcu = await readFile(
      join(root, "work", "instance-0", "profile", "user", "registrymodifications.xcu"),
      "utf8",
    );
    expect(xcu).toMatch(/MacroSecurityLevel" oor:op="fuse"><value>3</);
    expect(xcu).toMatch(/DisableMacrosExecution" oor:op="fuse"><value>true</);
  });
});

describe("bombs", () => {
  const convert = async (name: string, bytes: Buffer) => {
    const dir = join(root, `bomb-${name}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, name), bytes);
    return converter.convert({ path: join(dir, name), name }, dir);
  };

  it("refuses a ZIP bomb (1 GB of spaces in 1 MB) before LibreOffice, naming the limit", async () => {
    const failure = await convert("bomb.docx", zipBombDocx(1024 ** 3)).catch((error) => error);
    expect(failure).toMatchObject({ code: "invalid_input" });
    expect(failure.message).toMatch(
      /^bomb\.docx unpacks to 1 GB, 1,009 times its size: a ZIP bomb, not a document\. Packages that unpack to more than 256 MB at over 100 times their size/,
    );
  });

  it("converts the same package with a plain paragraph; a run of spaces converts with a warning", async () => {
    const plain = await convert("plain.docx", plainDocx("A plain paragraph"));
    expect(await pdfText(plain.path)).toContain("A plain paragraph");
    expect(plain.warnings).toEqual([]);
    // 50 MB of spaces unpacks a thousand times its size, but stays under the size limit: it converts,
    // to pages with nothing on them, and the client is told.
    const spaces = await convert("spaces.docx", zipBombDocx(50 * 1024 ** 2));
    expect(await pdfPages(spaces.path)).toBeGreaterThanOrEqual(1);
    expect(spaces.warnings).toEqual([
      expect.stringMatching(/^spaces\.docx converted to a PDF with nothing visible on it/),
    ]);
    const empty = await convert("empty.docx", plainDocx(""));
    expect(empty.warnings).toHaveLength(1);
  });

  it("refuses a billion-laughs entity bomb without expanding it", async () => {
    // LibreOffice's XML parser stops at the entity amplification; the file fails like a damaged one.
    const failure = await convert("laughs.docx", entityBombDocx()).catch((error) => error);
    expect(failure).toMatchObject({ code: "invalid_input" });
    expect(failure.message).toMatch(/^laughs\.docx is damaged or is not a valid Word \(DOCX\) file/);
  });
});
