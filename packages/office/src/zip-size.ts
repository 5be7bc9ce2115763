import { inputLimits } from "@octavo/contracts/limits";
import yauzl from "yauzl";

/**
 * A ZIP bomb's sizes, read from the package's central directory without inflating anything: a package of
 * `size` bytes that unpacks to more than inputLimits' bound at over its packing ratio. Undefined otherwise.
 */
export async function zipBombIn(
  path: string,
  size: number,
): Promise<{ unpackedBytes: number; size: number } | undefined> {
  const unpacked = (await unpackedBytes(path)) ?? 0;
  const { maxUnpackedBytes, maxPackingRatio } = inputLimits;
  return unpacked > maxUnpackedBytes && unpacked > size * maxPackingRatio
    ? { unpackedBytes: unpacked, size }
    : undefined;
}

/** What a ZIP package's central directory says its entries unpack to, read without inflating any. */
async function unpackedBytes(path: string): Promise<number | undefined> {
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.open(path, { lazyEntries: true, autoClose: false }, (error, opened) =>
        error ? reject(error) : resolve(opened),
      ),
    );
  } catch {
    return undefined; // a damaged package is LibreOffice's to judge (it may recover it)
  }
  try {
    return await new Promise<number | undefined>((resolve) => {
      let total = 0;
      zip.on("entry", (entry: yauzl.Entry) => {
        total += entry.uncompressedSize;
        zip.readEntry();
      });
      zip.on("end", () => resolve(total));
      zip.on("error", () => resolve(undefined));
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}
