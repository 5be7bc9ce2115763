import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The image set of @octavo/images (real images by others, and variants made from them; see its MANIFEST). */
const fixturesDir = fileURLToPath(
  new URL("../../../../packages/images/test/fixtures/images/", import.meta.url),
);

export interface ImageFixture {
  name: string;
  path: string;
  /** The pages its PDF must have; undefined for a file that must be refused with invalid_input. */
  pages: number | undefined;
}

/** Every fixture of the image set, with the outcome its MANIFEST.tsv states (column `pages`). */
export function imageFixtures(): ImageFixture[] {
  const [header = "", ...rows] = readFileSync(`${fixturesDir}MANIFEST.tsv`, "utf8").trim().split("\n");
  const columns = header.split("\t");
  const column = (row: string[], name: string): string => row[columns.indexOf(name)] ?? "";
  if (!columns.includes("pages")) throw new Error("the image fixtures' MANIFEST.tsv has no pages column");
  return rows.map((line) => {
    const row = line.split("\t");
    const name = column(row, "path");
    const pages = column(row, "pages");
    return { name, path: `${fixturesDir}${name}`, pages: pages === "refused" ? undefined : Number(pages) };
  });
}

export function imageFixture(name: string): ImageFixture {
  const fixture = imageFixtures().find((candidate) => candidate.name === name);
  if (fixture === undefined) throw new Error(`no image fixture ${name}`);
  return fixture;
}
