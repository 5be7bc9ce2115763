import { drainMupdfLog } from "@octavo/mupdf";
import { limits } from "../limits.js";
import { type DeclaredSize, readDeclaredSize } from "./declared-size.js";
import { countPages, encryptedPayloadOf, encryptionOf, openPdf } from "./document.js";

export type MupdfProbe =
  | {
      opened: true;
      /** Undefined when the file is not encrypted. */
      encryption: string | undefined;
      needsPassword: boolean;
      /** Subtype of a PDF 2.0 encrypted-payload wrapper (Microsoft IRM), if the file is one. */
      encryptedPayload: string | undefined;
      /** Undefined when the page tree is unreadable or absurd. */
      pages: number | undefined;
      repaired: boolean;
      /** Of a file that needs its password: only what is outside its sealed (object) streams. */
      declared: DeclaredSize;
      messages: string[];
    }
  | { opened: false; error: string; messages: string[] };

/** What MuPDF sees in a file, read in-process without writing anything. */
export async function probeWithMupdf(path: string): Promise<MupdfProbe> {
  drainMupdfLog();
  let doc: Awaited<ReturnType<typeof openPdf>>;
  try {
    doc = await openPdf(path);
  } catch (error) {
    return {
      opened: false,
      error: String(error instanceof Error ? error.message : error),
      messages: drainMupdfLog(),
    };
  }
  try {
    const encryption = encryptionOf(doc);
    return {
      opened: true,
      encryption,
      needsPassword: doc.needsPassword(),
      encryptedPayload: encryption === undefined ? encryptedPayloadOf(doc) : undefined,
      // Counting pages of a file that still needs its password would only see the encrypted tree.
      pages: doc.needsPassword() ? undefined : countPages(doc),
      repaired: doc.wasRepaired(),
      declared: readDeclaredSize(doc, {
        maxObjects: limits.maxObjects,
        maxInflatedBytes: limits.maxInflatedStreamBytes,
      }),
      messages: drainMupdfLog(),
    };
  } finally {
    doc.destroy();
  }
}
