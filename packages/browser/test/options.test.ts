import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HtmlRenderer, type HtmlRenderOptions, marginSizes } from "../src/index.js";
import {
  createTestRenderer,
  defaults,
  firstWordX,
  pdfInfo,
  pdfText,
  pixelAt,
  tempDir,
  writeHtml,
} from "./helpers.js";

const mmToPt = 72 / 25.4;

describe("render options", () => {
  let renderer: HtmlRenderer;
  let work: Awaited<ReturnType<typeof tempDir>>;
  let plain: string;
  let coloured: string;
  let perMedia: string;
  let cssPageSize: string;

  beforeAll(async () => {
    work = await tempDir();
    ({ renderer } = createTestRenderer(work.path));
    plain = await writeHtml(
      work.path,
      "plain.html",
      "<body style='margin:0'><p style='margin:0'>Leftmost words</p>",
    );
    coloured = await writeHtml(
      work.path,
      "coloured.html",
      "<style>html,body{margin:0;height:100%;background:rgb(255,0,0)}</style><p>Red page</p>",
    );
    perMedia = await writeHtml(
      work.path,
      "media.html",
      `<style>
        @media print { .screen { display: none } }
        @media screen { .print { display: none } }
      </style>
      <p class="print">Shown for print media</p><p class="screen">Shown for screen media</p>`,
    );
    cssPageSize = await writeHtml(work.path, "a5.html", "<style>@page { size: A5 }</style><p>A5 asked</p>");
  });

  afterAll(async () => {
    await renderer.close();
    await work.remove();
  });

  const render = async (
    input: string,
    options: Partial<HtmlRenderOptions>,
    name: string,
  ): Promise<string> => {
    const out = join(work.path, `${name}.pdf`);
    await renderer.renderHtml(input, { ...defaults, ...options }, out);
    return out;
  };

  it.each([
    ["A4", 595.92, 841.92],
    ["Letter", 612, 792],
    ["Legal", 612, 1008],
  ] as const)("prints on %s paper", async (format, width, height) => {
    const info = await pdfInfo(await render(plain, { format }, `format-${format}`));
    expect(info.width).toBeCloseTo(width, 0);
    expect(info.height).toBeCloseTo(height, 0);
  });

  it("turns the paper for landscape", async () => {
    const info = await pdfInfo(await render(plain, { format: "Letter", landscape: true }, "landscape"));
    expect(info.width).toBeCloseTo(792, 0);
    expect(info.height).toBeCloseTo(612, 0);
  });

  it("keeps the requested paper over the page's CSS @page size", async () => {
    const info = await pdfInfo(await render(cssPageSize, { format: "Letter" }, "css-size"));
    expect(info.width).toBeCloseTo(612, 0);
    expect(info.height).toBeCloseTo(792, 0);
  });

  it("states its margins: none 0 mm, small 10 mm, normal 20 mm", () => {
    expect(marginSizes).toEqual({ none: "0mm", small: "10mm", normal: "20mm" });
  });

  it.each([
    ["none", 0],
    ["small", 10],
    ["normal", 20],
  ] as const)("leaves a %s margin", async (margin, mm) => {
    const x = await firstWordX(await render(plain, { margin }, `margin-${margin}`));
    expect(x).toBeGreaterThanOrEqual(mm * mmToPt - 1);
    expect(x).toBeLessThan(mm * mmToPt + 3);
  });

  it("prints backgrounds only when asked", async () => {
    const withBackground = await pixelAt(await render(coloured, { background: true }, "bg-on"), 0.5, 0.5);
    const without = await pixelAt(await render(coloured, { background: false }, "bg-off"), 0.5, 0.5);
    expect(withBackground).toEqual([255, 0, 0]);
    expect(without).toEqual([255, 255, 255]);
  });

  it("emulates print or screen media", async () => {
    const print = await pdfText(await render(perMedia, { media: "print" }, "media-print"));
    const screen = await pdfText(await render(perMedia, { media: "screen" }, "media-screen"));
    expect(print).toContain("Shown for print media");
    expect(print).not.toContain("Shown for screen media");
    expect(screen).toContain("Shown for screen media");
    expect(screen).not.toContain("Shown for print media");
  });
});
