import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** ../shared beside the repository: the service spec, the guides and the corpus. */
export const sharedDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "shared");

/** ../shared/corpus beside the repository: real files written by others (see its MANIFEST.tsv). */
export const corpusDir = join(sharedDir, "corpus");

export function corpusPath(relative: string): string {
  return join(corpusDir, relative);
}

export interface CorpusEntry {
  path: string;
  category: string;
  license: string;
  notes: string;
  /** `pages=N` from the notes, when given. */
  pages: number | undefined;
  /** `user_password=...` from the notes: "" for `''(empty)`, undefined when unknown or absent. */
  userPassword: string | undefined;
}

function parsePassword(notes: string): string | undefined {
  const match = /user_password=([^;]*)/.exec(notes);
  if (!match?.[1]) return undefined;
  const raw = match[1].trim();
  if (raw.startsWith("''")) return "";
  // Non-ASCII passwords are also given as JSON, e.g. `æøå (json "\u00e6\u00f8\u00e5")`.
  const json = /\(json ("[^"]*")\)/.exec(raw);
  if (json?.[1]) return JSON.parse(json[1]) as string;
  return raw;
}

export function readManifest(): CorpusEntry[] {
  const lines = readFileSync(join(corpusDir, "MANIFEST.tsv"), "utf8").split("\n").slice(1);
  return lines
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [path = "", , , license = "", , category = "", notes = ""] = line.split("\t");
      const pages = /pages=(\d+)/.exec(notes)?.[1];
      return {
        path,
        category,
        license,
        notes,
        pages: pages === undefined ? undefined : Number(pages),
        userPassword: parsePassword(notes),
      };
    });
}
