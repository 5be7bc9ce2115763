import { readFile, writeFile } from "node:fs/promises";
import { unzipSync, type ZipOptions, zipSync } from "fflate";

/**
 * The most an Office output may hold unpacked. Outputs come from our engines (or a template Generate has
 * already refused as a ZIP bomb), but a sandbox's heap is capped, so a package beyond this is refused
 * before it is unpacked.
 */
const maxUnpackedBytes = 512 * 1024 * 1024;

/** A ZIP package (OOXML, ODF) read whole, its parts changed as text, and written back in the same order. */
export class ZipPackage {
  private constructor(private readonly parts: Map<string, Uint8Array>) {}

  static async read(path: string, name: string): Promise<ZipPackage> {
    let unpacked = 0;
    const parts = unzipSync(await readFile(path), {
      filter: (file) => {
        unpacked += file.originalSize;
        if (unpacked > maxUnpackedBytes) throw new Error(`${name} unpacks to more than 512 MB`);
        return true;
      },
    });
    return new ZipPackage(new Map(Object.entries(parts)));
  }

  has(part: string): boolean {
    return this.parts.has(part);
  }

  /** The package's part names, in the package's order. */
  names(): string[] {
    return [...this.parts.keys()];
  }

  text(part: string): string | undefined {
    const data = this.parts.get(part);
    return data === undefined ? undefined : new TextDecoder().decode(data);
  }

  setText(part: string, text: string): void {
    this.parts.set(part, new TextEncoder().encode(text));
  }

  async write(path: string): Promise<void> {
    const entries: Record<string, [Uint8Array, ZipOptions]> = {};
    for (const [part, data] of this.parts) {
      // ODF's `mimetype` must be stored uncompressed (and first, which the order kept here gives).
      entries[part] = [data, { level: part === "mimetype" ? 0 : 6 }];
    }
    await writeFile(path, zipSync(entries));
  }
}
