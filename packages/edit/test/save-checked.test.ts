import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { JobFailure } from "@octavo/engines";
import { loadMupdf } from "@octavo/mupdf";
import { contentBombPdf } from "@octavo/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { type PdfEdit, type SaveTarget, saveIfClean, startCheck } from "../src/save-checked.js";
import { context } from "./helpers.js";

/*
 * The edit frame's early save beside the source's qpdf check: what it leaves behind when it gives up. The
 * frame's behaviour on real files is tested through each operation (watermark, metadata, flatten, forms).
 */
beforeAll(async () => {
  await loadMupdf();
});

describe("saveIfClean", () => {
  it("leaves no rejection unread when the edit fails and the source's check is then stopped", async () => {
    const unread: unknown[] = [];
    const record = (reason: unknown) => unread.push(reason);
    process.on("unhandledRejection", record);
    try {
      const dir = (await context()).workDir;
      // One page whose content inflates to 200 MB: its qpdf --check is still running when it is stopped.
      const source = join(dir, "one-page.pdf");
      await writeFile(source, contentBombPdf(200 * 1024 ** 2));
      const check = startCheck(source, undefined);
      const target: SaveTarget = {
        source,
        pages: 1,
        sourceCheck: check,
        output: join(dir, "out.pdf"),
        scratchDir: dir,
        name: "one-page.pdf",
        signal: undefined,
        progress: () => undefined,
      };
      const failing: PdfEdit<void> = {
        purpose: "fail",
        saveOptions: "compress",
        needsReadableContent: false,
        edit: () => {
          throw new Error("an engine error, which the other route may avoid");
        },
      };
      // An engine error gives the preflight's route its turn: nothing kept, nothing thrown.
      expect(await saveIfClean(target, failing)).toBeUndefined();
      // The frame then stops the check (a rebuilt source is checked anew): its verdict rejects, read or not.
      check.stop();
      await expect(check.verdict).rejects.toBeInstanceOf(JobFailure);
      // Node reports an unhandled rejection once the microtasks have run: one turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      expect(unread).toEqual([]);
    } finally {
      process.off("unhandledRejection", record);
    }
  });
});
