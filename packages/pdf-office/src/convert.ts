import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  displayName,
  type EngineContext,
  type EngineInput,
  type EngineResult,
  runOperation,
} from "@octavo/engines";
import { officeContentTypes, officeNameLike, outputDir } from "./names.js";
import { type PreparedPdf, preparePdf } from "./prepare.js";

type Extension = keyof typeof officeContentTypes;

/** What one writer made of the prepared PDF. */
export interface Written {
  bytes: Uint8Array;
  engine: string;
  warnings: string[];
}

/**
 * The frame the three conversions share: a scratch dir, the preflight (and OCR of scanned pages), the
 * writer, and the output named like the input with the new extension. The writer reports progress from
 * `firstPageProgress` to PAGES_DONE_PROGRESS (layout.ts).
 */
export async function convertPdf(
  input: EngineInput,
  ctx: EngineContext,
  target: { extension: Extension; operation: string },
  write: (prepared: PreparedPdf, name: string, firstPageProgress: number) => Promise<Written>,
): Promise<EngineResult> {
  const name = displayName(input.name);
  return runOperation(ctx, name, async (scratchDir) => {
    const prepared = await preparePdf(input, name, scratchDir, ctx);
    let written: Written;
    try {
      ctx.onProgress?.(prepared.engines.length > 0 ? 0.4 : 0.05);
      written = await write(prepared, name, prepared.engines.length > 0 ? 0.4 : 0.05);
    } finally {
      prepared.doc.destroy();
    }
    const dir = await outputDir(ctx.workDir, target.operation);
    const path = join(dir, `converted.${target.extension}`);
    await writeFile(path, written.bytes);
    return {
      outputs: [
        {
          path,
          name: officeNameLike(input.name, target.extension),
          contentType: officeContentTypes[target.extension],
        },
      ],
      engine: [...prepared.engines, written.engine].join(" + "),
      warnings: [...prepared.warnings, ...written.warnings],
    };
  });
}
