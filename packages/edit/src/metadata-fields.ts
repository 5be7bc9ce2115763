import {
  instantOf,
  namespaces,
  pdfDateToXmp,
  type XmpPacket,
  type XmpProperty,
  xmpDateToPdf,
} from "@octavo/xmp";

export type TextField = "title" | "author" | "subject" | "keywords" | "creator" | "producer";
export const textFields: TextField[] = ["title", "author", "subject", "keywords", "creator", "producer"];

/** An Info entry and the XMP property that must carry the same value (the pairs of ISO 19005-1, 6.7.3). */
export interface FieldPair {
  info: string;
  xmp: XmpProperty;
}

export const pairs: Record<TextField, FieldPair> = {
  title: { info: "Title", xmp: { namespace: namespaces.dc, name: "title", form: "alt" } },
  author: { info: "Author", xmp: { namespace: namespaces.dc, name: "creator", form: "seq" } },
  subject: { info: "Subject", xmp: { namespace: namespaces.dc, name: "description", form: "alt" } },
  keywords: { info: "Keywords", xmp: { namespace: namespaces.pdf, name: "Keywords", form: "text" } },
  creator: { info: "Creator", xmp: { namespace: namespaces.xmp, name: "CreatorTool", form: "text" } },
  producer: { info: "Producer", xmp: { namespace: namespaces.pdf, name: "Producer", form: "text" } },
};
/** The keywords again, one item each, where Dublin Core readers look for them. */
export const keywordList: XmpProperty = { namespace: namespaces.dc, name: "subject", form: "bag" };
export const creationDate: FieldPair = {
  info: "CreationDate",
  xmp: { namespace: namespaces.xmp, name: "CreateDate", form: "text" },
};
export const modificationDate: FieldPair = {
  info: "ModDate",
  xmp: { namespace: namespaces.xmp, name: "ModifyDate", form: "text" },
};
export const metadataDate: XmpProperty = { namespace: namespaces.xmp, name: "MetadataDate", form: "text" };
export const pdfaPart: XmpProperty = { namespace: namespaces.pdfaid, name: "part", form: "text" };

/** The Info dictionary's text entries, decoded, by key. */
export type InfoEntries = Record<string, string | undefined>;

/** What the document says now: one value per field, and the creation date in both forms. */
export interface CurrentValues {
  text: Partial<Record<TextField, string>>;
  created: { info: string | undefined; xmp: string | undefined };
}

/** What the document will say: one value per text field, and the keywords one by one when given. */
export interface Target {
  text: Partial<Record<TextField, string>>;
  keywordList: string[] | undefined;
  created: CurrentValues["created"];
  modified: { pdf: string; xmp: string };
}

/**
 * Reconciles the Info dictionary and the XMP packet field by field. Where both hold a value and they
 * differ, the more recently modified place wins: Info when its /ModDate is later than the packet's
 * xmp:MetadataDate (else xmp:ModifyDate) or the packet has no date (a tool updated Info only), the XMP
 * otherwise, as PDF 2.0 prefers it. A field only one place holds is taken from there; an empty value
 * counts only when neither has another.
 */
export function currentValues(info: InfoEntries, xmp: XmpPacket | undefined): CurrentValues {
  const infoModified = instantOrUndefined(info[modificationDate.info]);
  const xmpModified = instantOrUndefined(xmp?.get(metadataDate) ?? xmp?.get(modificationDate.xmp));
  const infoFirst = infoModified !== undefined && (xmpModified === undefined || infoModified > xmpModified);
  const pick = (fromInfo: string | undefined, fromXmp: string | undefined): string | undefined => {
    const ordered = infoFirst ? [fromInfo, fromXmp] : [fromXmp, fromInfo];
    return (
      ordered.find((value) => value !== undefined && value.trim() !== "") ??
      ordered.find((value) => value !== undefined)
    );
  };

  const text: Partial<Record<TextField, string>> = {};
  for (const field of textFields) {
    const value = pick(info[pairs[field].info], xmp?.get(pairs[field].xmp));
    if (value !== undefined) text[field] = value;
  }
  const infoCreated = info[creationDate.info];
  const xmpCreated = xmp?.get(creationDate.xmp);
  const created = pick(infoCreated, xmpCreated);
  return {
    text,
    created:
      created === undefined
        ? { info: undefined, xmp: undefined }
        : created === infoCreated
          ? { info: created, xmp: pdfDateToXmp(created) }
          : { info: xmpDateToPdf(created), xmp: created },
  };
}

function instantOrUndefined(text: string | undefined): number | undefined {
  return text === undefined ? undefined : instantOf(text);
}
