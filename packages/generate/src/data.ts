import { readFile, stat } from "node:fs/promises";
import { JobFailure } from "@octavo/engines/errors";

/** Items the data makes a document each: an object is one, an array each of its objects. */
export type DataItems = readonly Readonly<Record<string, unknown>>[];

/** data.json's largest size: what a 500-item batch of invoices needs, many times over. */
export const maxDataFileBytes = 50 * 1024 * 1024;
const maxDepth = 32;

/**
 * A copy of the data whose objects have no prototype, so no path a template names can reach one (lookup
 * reads own properties too; this is the second wall). Deeper nesting than JSON data needs is refused.
 */
export function inertCopy(value: unknown, depth = 0): unknown {
  if (depth > maxDepth) throw invalidData(`the data nests more than ${maxDepth} levels deep`);
  if (Array.isArray(value)) return value.map((item) => inertCopy(item, depth + 1));
  if (typeof value !== "object" || value === null) return value;
  const copy: Record<string, unknown> = Object.create(null);
  for (const [key, inner] of Object.entries(value)) copy[key] = inertCopy(inner, depth + 1);
  return copy;
}

function invalidData(why: string): JobFailure {
  return new JobFailure("invalid_options", `The data cannot be used: ${why}.`);
}

/** The items to generate, from options.data or the uploaded data.json (the API lets exactly one through). */
export async function dataItems(
  inline: unknown,
  file: { path: string } | undefined,
  maxItems: number,
): Promise<{ items: DataItems; batch: boolean }> {
  const data = file === undefined ? inline : await readDataFile(file.path);
  const batch = Array.isArray(data);
  const items = batch ? data : [data];
  if (items.length === 0) throw invalidData("data.json holds an empty array");
  if (items.length > maxItems) {
    throw invalidData(
      `it holds ${items.length} items, and one job makes at most ${maxItems} documents; send it in parts`,
    );
  }
  for (const [index, item] of items.entries()) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      throw invalidData(`${batch ? `item ${index + 1}` : "it"} is not a JSON object`);
    }
  }
  return { items: items.map((item) => inertCopy(item) as Record<string, unknown>), batch };
}

async function readDataFile(path: string): Promise<unknown> {
  const { size } = await stat(path);
  if (size > maxDataFileBytes) throw invalidData(`data.json is over ${maxDataFileBytes / 1024 / 1024} MB`);
  try {
    return JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw invalidData(`data.json is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}
