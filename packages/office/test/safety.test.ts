import { access, mkdir, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { run } from "@octavo/engines";
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
    for (let waited = 0; waited < 60_000 && !(await exists(marker)); waited += 250) {
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
