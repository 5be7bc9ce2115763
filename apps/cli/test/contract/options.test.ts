import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { corpusPath, createTempDir } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../support/client.js";
import { type Stack, startStack } from "../support/stack.js";

// Every operation's options table of the spec, written out by hand from the spec (not generated from
// our schemas, so a drift between the two fails here). Each case goes through real HTTP: a refused
// option answers 400 invalid_options naming it; an accepted one gets past validation (202, or 503
// while the operation's engine is not installed yet).

type Case = [options: unknown, outcome: "accepted" | string];

const pdf = { path: corpusPath("general/samplefiles_pdflatex-outline.pdf"), name: "in.pdf" };

const cases: Record<
  string,
  { files: "pdf" | "pdf2" | "docx" | "pptx" | "xlsx" | "html" | "png" | "none"; cases: Case[] }
> = {
  merge: {
    files: "pdf2",
    cases: [
      [{}, "accepted"],
      [{ order: "reverse" }, "order"],
    ],
  },
  split: {
    files: "pdf",
    cases: [
      [{}, "accepted"],
      [{ ranges: "1-3,5, 7-9" }, "accepted"],
      [{ ranges: "2" }, "accepted"],
      [{ ranges: "0" }, "ranges"],
      [{ ranges: "5-3" }, "ranges"],
      [{ ranges: "a-b" }, "ranges"],
      [{ ranges: 3 }, "ranges"],
      [{ every: 2 }, "every"],
    ],
  },
  rotate: {
    files: "pdf",
    cases: [
      [{}, "accepted"],
      [{ angle: 90 }, "accepted"],
      [{ angle: 180 }, "accepted"],
      [{ angle: 270, pages: "1,2-3" }, "accepted"],
      [{ angle: 45 }, "angle"],
      [{ angle: "90" }, "angle"],
      [{ angle: -90 }, "angle"],
      [{ pages: "x" }, "pages"],
      [{ colour: "red" }, "colour"],
    ],
  },
  compress: {
    files: "pdf",
    cases: [
      [{}, "accepted"],
      [{ level: "low" }, "accepted"],
      [{ level: "recommended" }, "accepted"],
      [{ level: "extreme", grayscale: true }, "accepted"],
      [{ targetKB: 20 }, "accepted"],
      [{ targetKB: 100000 }, "accepted"],
      [{ level: "maximum" }, "level"],
      [{ targetKB: 19 }, "targetKB"],
      [{ targetKB: 100001 }, "targetKB"],
      [{ targetKB: 50.5 }, "targetKB"],
      [{ grayscale: "yes" }, "grayscale"],
    ],
  },
  repair: {
    files: "pdf",
    cases: [
      [{}, "accepted"],
      [{ deep: true }, "deep"],
    ],
  },
  ocr: {
    files: "pdf",
    cases: [
      [{}, "accepted"],
      [{ languages: ["eng", "chi_sim", "kor"] }, "accepted"],
      [{ languages: ["ara"], deskew: false, force: true }, "accepted"],
      [{ languages: [] }, "languages"],
      [{ languages: ["eng", "deu", "fra", "spa"] }, "languages"],
      [{ languages: ["klingon"] }, "languages"],
      [{ languages: "eng" }, "languages"],
      [{ deskew: 1 }, "deskew"],
      [{ force: "true" }, "force"],
    ],
  },
  "word-to-pdf": {
    files: "docx",
    cases: [
      [{}, "accepted"],
      [{ quality: 1 }, "quality"],
    ],
  },
  "powerpoint-to-pdf": {
    files: "pptx",
    cases: [
      [{}, "accepted"],
      [{ notes: true }, "notes"],
    ],
  },
  "excel-to-pdf": {
    files: "xlsx",
    cases: [
      [{}, "accepted"],
      [{ sheet: 1 }, "sheet"],
    ],
  },
  "html-to-pdf": {
    files: "html",
    cases: [
      [{}, "accepted"],
      [{ format: "Letter", landscape: true, margin: "none", background: false, media: "print" }, "accepted"],
      [{ format: "Legal", margin: "normal", media: "screen" }, "accepted"],
      [{ format: "A3" }, "format"],
      [{ margin: "wide" }, "margin"],
      [{ media: "tv" }, "media"],
      [{ landscape: "no" }, "landscape"],
      [{ background: 0 }, "background"],
      [{ url: "not a url" }, "url"],
      [{ url: "ftp://example.com/page.html" }, "url"],
    ],
  },
  "pdf-to-word": {
    files: "pdf",
    cases: [
      [{}, "accepted"],
      [{ ocr: true }, "ocr"],
    ],
  },
  "pdf-to-powerpoint": {
    files: "pdf",
    cases: [
      [{}, "accepted"],
      [{ slides: 1 }, "slides"],
    ],
  },
  "pdf-to-excel": {
    files: "pdf",
    cases: [
      [{}, "accepted"],
      [{ mode: "tables" }, "accepted"],
      [{ mode: "pages" }, "accepted"],
      [{ mode: "cells" }, "mode"],
    ],
  },
  "pdf-to-pdfa": {
    files: "pdf",
    cases: [
      [{}, "accepted"],
      [{ level: "1" }, "accepted"],
      [{ level: "3" }, "accepted"],
      [{ level: "4" }, "level"],
      [{ level: "2b" }, "level"],
    ],
  },
  protect: {
    files: "pdf",
    cases: [
      [{ userPassword: "s3cret" }, "accepted"],
      [
        {
          userPassword: "s3cret",
          ownerPassword: "owner",
          allowPrinting: false,
          allowCopying: true,
          allowEditing: true,
        },
        "accepted",
      ],
      [{}, "userPassword"],
      [{ userPassword: "" }, "userPassword"],
      [{ userPassword: 1234 }, "userPassword"],
      [{ userPassword: "a", allowPrinting: "no" }, "allowPrinting"],
      [{ userPassword: "a", permissions: "all" }, "permissions"],
    ],
  },
  unlock: {
    files: "pdf",
    cases: [
      [{}, "accepted"],
      [{ password: "" }, "accepted"],
      [{ password: "x" }, "accepted"],
      [{ password: 42 }, "password"],
    ],
  },
  // Beyond the spec: issue 19's options table, also written out by hand.
  "pdf-to-image": {
    files: "pdf",
    cases: [
      [{}, "accepted"],
      [{ format: "jpeg", dpi: 36, quality: 1, pages: "1" }, "accepted"],
      [{ format: "webp", dpi: 600, quality: 100 }, "accepted"],
      [{ format: "png" }, "accepted"],
      [{ format: "gif" }, "format"],
      [{ dpi: 35 }, "dpi"],
      [{ dpi: 601 }, "dpi"],
      [{ dpi: 150.5 }, "dpi"],
      [{ quality: 0 }, "quality"],
      [{ quality: 101 }, "quality"],
      [{ pages: "3-1" }, "pages"],
      [{ scale: 2 }, "scale"],
    ],
  },
  "image-to-pdf": {
    files: "png",
    cases: [
      [{}, "accepted"],
      [{ pageSize: "A4", orientation: "landscape", margin: "normal" }, "accepted"],
      [{ pageSize: "Letter", orientation: "portrait", margin: "small" }, "accepted"],
      [{ pageSize: "fit", orientation: "auto", margin: "none" }, "accepted"],
      [{ pageSize: "A3" }, "pageSize"],
      [{ orientation: "upright" }, "orientation"],
      [{ margin: "large" }, "margin"],
      [{ margin: 10 }, "margin"],
      [{ dpi: 300 }, "dpi"],
    ],
  },
  watermark: {
    files: "pdf",
    cases: [
      [{ text: "DRAFT" }, "accepted"],
      [
        {
          text: "x".repeat(200),
          fontSize: 6,
          color: "#a0B0c0",
          opacity: 0.05,
          rotation: -90,
          position: "top-left",
          pages: "1",
        },
        "accepted",
      ],
      [{ text: "Ω", fontSize: 200, opacity: 1, rotation: 90, position: "bottom-right" }, "accepted"],
      [{}, "text"],
      [{ text: "" }, "text"],
      [{ text: "x".repeat(201) }, "text"],
      [{ text: "a", fontSize: 5 }, "fontSize"],
      [{ text: "a", fontSize: 201 }, "fontSize"],
      [{ text: "a", color: "red" }, "color"],
      [{ text: "a", color: "#12345" }, "color"],
      [{ text: "a", opacity: 0.04 }, "opacity"],
      [{ text: "a", opacity: 1.5 }, "opacity"],
      [{ text: "a", rotation: 91 }, "rotation"],
      [{ text: "a", rotation: -91 }, "rotation"],
      [{ text: "a", position: "middle" }, "position"],
      [{ text: "a", pages: "0" }, "pages"],
      [{ text: "a", font: "Times" }, "font"],
    ],
  },
  "page-numbers": {
    files: "pdf",
    cases: [
      [{}, "accepted"],
      [{ format: "Page {n} of {total}", position: "top-right", start: 100000, fontSize: 72 }, "accepted"],
      [
        { format: "{n}", position: "bottom-left", start: 1, pages: "2-3", fontSize: 6, margin: "small" },
        "accepted",
      ],
      [{ format: "" }, "format"],
      [{ format: "Page" }, "format"],
      [{ format: `{n}${"x".repeat(48)}` }, "format"],
      [{ position: "center" }, "position"],
      [{ start: 0 }, "start"],
      [{ start: 100001 }, "start"],
      [{ start: 1.5 }, "start"],
      [{ fontSize: 5 }, "fontSize"],
      [{ fontSize: 73 }, "fontSize"],
      [{ margin: "none" }, "margin"],
      [{ pages: "x" }, "pages"],
    ],
  },
  flatten: {
    files: "pdf",
    cases: [
      [{}, "accepted"],
      [{ forms: false, annotations: true }, "accepted"],
      [{ forms: true, annotations: false }, "accepted"],
      [{ forms: "yes" }, "forms"],
      [{ annotations: 1 }, "annotations"],
      [{ links: false }, "links"],
    ],
  },
  metadata: {
    files: "pdf",
    cases: [
      [{}, "accepted"],
      [
        {
          title: "t".repeat(1000),
          author: "Ada",
          subject: "S",
          creator: "C",
          keywords: Array.from({ length: 50 }, (_, index) => `k${index}`),
          remove: true,
        },
        "accepted",
      ],
      [{ remove: false, title: "" }, "accepted"],
      [{ title: "t".repeat(1001) }, "title"],
      [{ author: 7 }, "author"],
      [{ subject: "s".repeat(1001) }, "subject"],
      [{ creator: null }, "creator"],
      [{ keywords: "a, b" }, "keywords"],
      [{ keywords: Array.from({ length: 51 }, () => "k") }, "keywords"],
      [{ keywords: [1] }, "keywords"],
      [{ remove: "all" }, "remove"],
      [{ producer: "x" }, "producer"],
    ],
  },
};

const paths: Record<string, string> = {
  "word-to-pdf": "/v1/convert/word-to-pdf",
  "powerpoint-to-pdf": "/v1/convert/powerpoint-to-pdf",
  "excel-to-pdf": "/v1/convert/excel-to-pdf",
  "html-to-pdf": "/v1/convert/html-to-pdf",
  "pdf-to-word": "/v1/convert/pdf-to-word",
  "pdf-to-powerpoint": "/v1/convert/pdf-to-powerpoint",
  "pdf-to-excel": "/v1/convert/pdf-to-excel",
  "pdf-to-pdfa": "/v1/convert/pdf-to-pdfa",
  "pdf-to-image": "/v1/convert/pdf-to-image",
  "image-to-pdf": "/v1/convert/image-to-pdf",
};

describe("every operation's options, through the API", () => {
  let stack: Stack;
  let scratch: { path: string; dispose(): Promise<void> };
  const filesFor: Record<string, { path: string; name: string }[]> = {};

  beforeAll(async () => {
    // Validation answers at once, before a job exists: no workers (they would run every accepted job).
    stack = await startStack({ database: "sqlite", redis: "supervised", workers: false });
    scratch = await createTempDir();
    // Validation happens before any engine reads the file, so small stand-ins do for Office, HTML and images.
    for (const [kind, name, body] of [
      ["docx", "in.docx", "stand-in"],
      ["pptx", "in.pptx", "stand-in"],
      ["xlsx", "in.xlsx", "stand-in"],
      ["html", "in.html", "<h1>hello</h1>"],
      ["png", "in.png", "stand-in"],
    ] as const) {
      const path = join(scratch.path, name);
      await writeFile(path, body);
      filesFor[kind] = [{ path, name }];
    }
    filesFor.pdf = [pdf];
    filesFor.pdf2 = [pdf, { ...pdf, name: "second.pdf" }];
    filesFor.none = [];
  });
  afterAll(async () => {
    await stack?.close();
    await scratch?.dispose();
  });

  for (const [operation, { files, cases: operationCases }] of Object.entries(cases)) {
    it(`${operation}: ${operationCases.length} cases`, async () => {
      const client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
      const path = paths[operation] ?? `/v1/${operation}`;
      for (const [options, outcome] of operationCases) {
        const answer = await client.postFiles(path, filesFor[files] ?? [], options);
        const label = `${operation} ${JSON.stringify(options)}`;
        if (outcome === "accepted") {
          expect([202, 503], `${label}: ${JSON.stringify(answer.body)}`).toContain(answer.status);
          if (answer.status === 503) expect(answer.body.error, label).toBe("unavailable");
        } else {
          expect(answer.status, label).toBe(400);
          expect(answer.body.error, label).toBe("invalid_options");
          expect(answer.body.detail, label).toMatch(new RegExp(`^${outcome}: `));
        }
      }
    });
  }

  it("refuses options that are not a JSON object", async () => {
    const client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
    for (const raw of ["[1,2]", '"text"', "42", "null", "{not json"]) {
      const form = new FormData();
      form.append("file", new Blob([Buffer.from("%PDF-1.4")]), "in.pdf");
      form.append("options", raw);
      const response = await fetch(`${stack.baseUrl}/v1/rotate`, {
        method: "POST",
        headers: { authorization: `Bearer ${client.apiKey}` },
        body: form,
      });
      const body = (await response.json()) as { error: string; detail: string };
      expect(response.status, raw).toBe(400);
      expect(body.error, raw).toBe("invalid_options");
      expect(body.detail, raw).toMatch(/^options: must be a JSON object/);
    }
  });

  it("states its limits on options and steps: 32 levels deep and 1 MB, in either form", async () => {
    const { apiKey } = await stack.createAccount("business");
    const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
    // 600 KB, inside the 1 MB a body or field may hold; JSON.parse reads it, recursion would not.
    const deep = nested(100_000);
    const post = async (path: string, body: BodyInit, headers: Record<string, string> = {}) => {
      const response = await fetch(`${stack.baseUrl}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, ...headers },
        body,
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const json = { "content-type": "application/json" };
    const form = (field: string, value: string) => {
      const body = new FormData();
      body.append("file", new Blob([Buffer.from("%PDF-1.4")]), "in.pdf");
      body.append(field, value);
      return body;
    };
    const tooDeep = {
      error: "invalid_options",
      message: "The options field is nested too deeply.",
      detail: "options: objects and arrays may nest at most 32 levels deep",
    };
    const url = '"url": "https://example.com/a.pdf"';
    expect(await post("/v1/rotate", `{${url}, "options": ${deep}}`, json)).toMatchObject({
      status: 400,
      body: tooDeep,
    });
    // The Idempotency-Key fingerprint serialises the options: it must not see them first.
    const keyed = { ...json, "idempotency-key": "deep-options" };
    expect(await post("/v1/rotate", `{${url}, "options": ${deep}}`, keyed)).toMatchObject({
      status: 400,
      body: tooDeep,
    });
    expect(await post("/v1/rotate", form("options", deep))).toMatchObject({ status: 400, body: tooDeep });
    expect(await post("/v1/pipeline", form("steps", `[${deep}]`))).toMatchObject({
      status: 400,
      body: {
        error: "invalid_options",
        detail: "steps: objects and arrays may nest at most 32 levels deep",
      },
    });
    // At the limit the options are read, and "a" is refused as an unknown option like any other.
    const atLimit = await post("/v1/rotate", form("options", nested(32)));
    expect(atLimit.status).toBe(400);
    expect(atLimit.body.detail).toMatch(/^a: /);

    const overSize = `{"title": "${"t".repeat(1024 * 1024)}"}`;
    expect(await post("/v1/metadata", form("options", overSize))).toMatchObject({
      status: 400,
      body: {
        error: "invalid_request",
        message: "The options field is too long.",
        detail: "A form field may hold at most 1 MB.",
      },
    });
    expect(await post("/v1/metadata", `{${url}, "options": ${overSize}}`, json)).toMatchObject({
      status: 413,
      body: { error: "too_large", message: "The request body is too large." },
    });
  });
});
