import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { launch } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HtmlRenderer } from "../src/index.js";
import { createTestRenderer, defaults, pdfText, tempDir, writeHtml } from "./helpers.js";

/** An uploaded page trying every way to show a local file, and to read one with script. */
const stealing = (secretPath: string): string => `<!doctype html><meta charset="utf-8">
<p>Local file probe</p>
<iframe id="f1" src="file:///etc/passwd" width="600" height="300"></iframe>
<iframe src="/etc/passwd" width="600" height="300"></iframe>
<iframe src="\\\\localhost/etc/passwd" width="600" height="300"></iframe>
<iframe src="file://localhost/etc/passwd" width="600" height="300"></iframe>
<iframe src="FILE:///etc/passwd" width="600" height="300"></iframe>
<iframe src="file://${secretPath}" width="600" height="300"></iframe>
<object data="file:///etc/passwd" type="text/plain" width="600" height="300"></object>
<embed src="file:///etc/passwd" type="text/plain" width="600" height="300">
<img src="file:///etc/passwd">
<link rel="stylesheet" href="file:///etc/passwd">
<pre id="out"></pre>
<script>
  const show = (text) => { document.getElementById("out").textContent += text + "\\n"; };
  fetch("file:///etc/passwd").then((r) => r.text()).then(show, (e) => show("fetch refused"));
  try {
    const x = new XMLHttpRequest();
    x.open("GET", "file:///etc/passwd", false);
    x.send();
    show(x.responseText);
  } catch (e) { show("xhr refused"); }
  window.addEventListener("load", () => {
    try { show(document.getElementById("f1").contentDocument.body.innerText); } catch (e) { show("frame refused"); }
  });
</script>`;

/** The same, with every relative URL made to point at the root of the file system. */
const baseTrick = `<!doctype html><meta charset="utf-8"><base href="file:///">
<p>Base probe</p>
<iframe src="etc/passwd" width="600" height="300"></iframe>
<object data="etc/passwd" type="text/plain" width="600" height="300"></object>
<embed src="etc/passwd" type="text/plain" width="600" height="300">
<a href="etc/passwd">link</a>
<pre id="out"></pre>
<script>fetch("etc/passwd").then((r) => r.text()).then((t) => { document.getElementById("out").textContent = t; },
  () => { document.getElementById("out").textContent = "fetch refused"; });</script>`;

describe("uploaded HTML cannot read local files", () => {
  let renderer: HtmlRenderer;
  let work: Awaited<ReturnType<typeof tempDir>>;
  let passwdLines: string[];

  beforeAll(async () => {
    work = await tempDir();
    ({ renderer } = createTestRenderer(work.path));
    passwdLines = (await readFile("/etc/passwd", "utf8")).split("\n").filter((line) => line.includes(":x:"));
  });

  afterAll(async () => {
    await renderer.close();
    await work.remove();
  });

  const expectNoPasswd = (text: string): void => {
    expect(text).not.toContain("root:x:0:0");
    for (const line of passwdLines) expect(text).not.toContain(line);
  };

  it("shows no line of /etc/passwd, nor a file beside the upload", async () => {
    const secret = await writeHtml(work.path, "secret.txt", "TOP SECRET NEIGHBOUR");
    const input = await writeHtml(work.path, "steal.html", stealing(secret));
    const out = join(work.path, "steal.pdf");
    await renderer.renderHtml(input, defaults, out);
    const text = await pdfText(out);
    expect(text).toContain("Local file probe");
    expect(text).toContain("fetch refused");
    expect(text).toContain("xhr refused");
    expectNoPasswd(text);
    expect(text).not.toContain("TOP SECRET NEIGHBOUR");
  });

  it("is not fooled by <base href=file:///>", async () => {
    const out = join(work.path, "base.pdf");
    await renderer.renderHtml(await writeHtml(work.path, "base.html", baseTrick), defaults, out);
    const text = await pdfText(out);
    expect(text).toContain("Base probe");
    expect(text).toContain("fetch refused");
    expectNoPasswd(text);
  });

  it("cannot read the uploaded file's own directory either", async () => {
    const input = await writeHtml(
      work.path,
      "self.html",
      `<p>Self probe</p><iframe src="file://${work.path}/" width="600" height="400"></iframe>`,
    );
    const out = join(work.path, "self.pdf");
    await renderer.renderHtml(input, defaults, out);
    const text = await pdfText(out);
    expect(text).toContain("Self probe");
    expect(text).not.toContain("steal.html");
  });

  // Proves the probes work: opened as a file:// URL (what the renderer never does), the page leaks.
  it("control: the same page opened from file:// does show /etc/passwd", async () => {
    const input = await writeHtml(work.path, "control.html", stealing("/nonexistent"));
    const browser = await launch({
      executablePath: "/usr/bin/chromium",
      userDataDir: join(work.path, "control-profile"),
      args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
      pipe: true,
    });
    try {
      const page = await browser.newPage();
      await page.goto(`file://${input}`, { waitUntil: "load" });
      await page.pdf({ path: join(work.path, "control.pdf") });
    } finally {
      await browser.close();
    }
    expect(await pdfText(join(work.path, "control.pdf"))).toContain("root:x:0:0");
  });
});
