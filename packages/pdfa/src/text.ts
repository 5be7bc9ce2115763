import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { run } from "@octavo/engines";

/** The text poppler extracts, as a multiset of characters (whitespace dropped, NFKC, case folded). */
export type CharCounts = Map<string, number>;

/** pdftotext's reading of the file, or undefined when poppler cannot read it. */
export async function extractText(
  path: string,
  scratchDir: string,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  const target = join(scratchDir, `text-${Date.now()}-${Math.random().toString(36).slice(2)}.txt`);
  try {
    const result = await run("pdftotext", ["-q", "-enc", "UTF-8", path, target], {
      timeoutMs: 120_000,
      signal,
    });
    if (result.exitCode !== 0) return undefined;
    return await readFile(target, "utf8");
  } catch {
    return undefined;
  } finally {
    await rm(target, { force: true });
  }
}

export function charCounts(text: string): CharCounts {
  const counts: CharCounts = new Map();
  for (const char of text.normalize("NFKC").toLowerCase()) {
    if (/\s/u.test(char)) continue;
    counts.set(char, (counts.get(char) ?? 0) + 1);
  }
  return counts;
}

export function total(counts: CharCounts): number {
  let sum = 0;
  for (const count of counts.values()) sum += count;
  return sum;
}

/**
 * The share of the input's characters found again in the output (as a multiset, so reordering does not
 * matter but lost or garbled text does). 1 when the input has no text.
 */
export function textRecall(before: CharCounts, after: CharCounts): number {
  const expected = total(before);
  if (expected === 0) return 1;
  let kept = 0;
  for (const [char, count] of before) kept += Math.min(count, after.get(char) ?? 0);
  return kept / expected;
}
