// The two places document metadata lives: the trailer's Info dictionary and the catalog's XMP packet.
import type { PdfDocument } from "@octavo/engines";
import type { Mupdf } from "@octavo/mupdf";
import { instantOf, XmpPacket } from "@octavo/xmp";
import {
  creationDate,
  type InfoEntries,
  keywordList,
  metadataDate,
  modificationDate,
  pairs,
  type Target,
  textFields,
} from "./metadata-fields.js";
import { objectAt } from "./pdf-objects.js";

/** The Info dictionary's text entries. */
export function readInfo(doc: PdfDocument): InfoEntries {
  const dict = objectAt(doc.getTrailer(), "Info");
  const entries: InfoEntries = {};
  if (!dict.isDictionary()) return entries;
  dict.forEach((value, key) => {
    if (value.isString()) entries[String(key)] = value.asString();
  });
  return entries;
}

/** The catalog's XMP packet; `unreadable` says why a packet there could not be parsed. */
export function readPacket(doc: PdfDocument): { packet?: XmpPacket; unreadable?: string } {
  const stream = objectAt(doc.getTrailer(), "Root", "Metadata");
  if (!stream.isStream()) return {};
  try {
    return { packet: XmpPacket.parse(decodePacket(stream.readStream().asUint8Array())) };
  } catch (error) {
    return { unreadable: (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "" };
  }
}

/** XMP is UTF-8 unless a byte order mark says UTF-16; the mark itself is not XML. */
function decodePacket(bytes: Uint8Array): string {
  const utf16 = (bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0xff && bytes[1] === 0xfe);
  const encoding = utf16 ? (bytes[0] === 0xfe ? "utf-16be" : "utf-16le") : "utf-8";
  return new TextDecoder(encoding).decode(bytes).replace(/^\uFEFF/, "");
}

/** Sets the Info entries to the target; an entry only the other place had an empty value for is not added. */
export function writeInfo(doc: PdfDocument, before: InfoEntries, target: Target, clear: boolean): void {
  let dict = objectAt(doc.getTrailer(), "Info");
  if (!dict.isDictionary()) {
    dict = doc.addObject(doc.newDictionary());
    doc.getTrailer().put("Info", dict);
  }
  if (clear) for (const key of keysOf(dict)) dict.delete(key);
  const put = (key: string, value: string | undefined) => {
    if (value === undefined || (value === "" && before[key] === undefined)) dict.delete(key);
    else if (before[key] !== value) dict.put(key, doc.newString(value));
  };
  for (const field of textFields) put(pairs[field].info, target.text[field]);
  put(creationDate.info, target.created.info);
  dict.put(modificationDate.info, doc.newString(target.modified.pdf));
}

function keysOf(dict: Mupdf.PDFObject): string[] {
  const keys: string[] = [];
  dict.forEach((_, key) => {
    keys.push(String(key));
  });
  return keys;
}

/** Sets the packet's properties to the target and makes it the catalog's uncompressed /Metadata. */
export function writePacket(doc: PdfDocument, packet: XmpPacket, target: Target): void {
  for (const field of textFields) {
    const property = pairs[field].xmp;
    const value = target.text[field];
    const present = packet.get(property);
    if (value === undefined) packet.remove(property);
    else if (present !== value && !(value === "" && present === undefined)) packet.set(property, [value]);
  }
  if (target.keywordList !== undefined) {
    if (target.keywordList.length === 0) packet.remove(keywordList);
    else packet.set(keywordList, target.keywordList);
  }
  const created = target.created.xmp;
  const presentCreated = packet.get(creationDate.xmp);
  if (created === undefined) packet.remove(creationDate.xmp);
  else if (presentCreated === undefined || instantOf(presentCreated) !== instantOf(created)) {
    packet.set(creationDate.xmp, [created]);
  }
  packet.set(modificationDate.xmp, [target.modified.xmp]);
  packet.set(metadataDate, [target.modified.xmp]);

  const dict = doc.newDictionary();
  dict.put("Type", doc.newName("Metadata"));
  dict.put("Subtype", doc.newName("XML"));
  // PDF/A wants the packet readable without a filter; MuPDF's save leaves XML metadata uncompressed.
  const stream = doc.addStream(new TextEncoder().encode(packet.serialize()), dict);
  objectAt(doc.getTrailer(), "Root").put("Metadata", stream);
}
