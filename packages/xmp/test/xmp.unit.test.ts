import { describe, expect, it } from "vitest";
import {
  bothForms,
  fixGhostscriptDate,
  instantOf,
  namespaces,
  parsePdfDate,
  parseXmpDate,
  pdfDateToXmp,
  XmpPacket,
  xmpDateToPdf,
} from "../src/index.js";

const noon = Date.UTC(2026, 0, 2, 12, 0, 0);

describe("PDF and XMP dates, one parser", () => {
  it("reads both forms to the same instant, zones applied", () => {
    expect(instantOf("D:20260102130000+01'00'")).toBe(noon);
    expect(instantOf("2026-01-02T13:00:00+01:00")).toBe(noon);
    expect(instantOf("D:20260102120000Z")).toBe(noon);
    // Ghostscript's "Z00'00'", and a local time without a zone, read as UTC.
    expect(instantOf("D:20260102120000Z00'00'")).toBe(noon);
    expect(instantOf("D:20260102120000")).toBe(noon);
    expect(instantOf("yesterday")).toBeUndefined();
  });

  it("takes only the validators' grammar where PDF/A is checked", () => {
    expect(parsePdfDate("D:20260102130000+01'00'")).toEqual({ epochMs: noon, zoned: true });
    expect(parsePdfDate("D:20260102120000")).toEqual({ epochMs: noon, zoned: false });
    // PDFBox Preflight cannot read Ghostscript 10.0's form; the finish step rewrites it.
    expect(parsePdfDate("D:20260102120000Z00'00'")).toBeUndefined();
    expect(parsePdfDate(fixGhostscriptDate("D:20260102120000Z00'00'"))).toEqual({
      epochMs: noon,
      zoned: true,
    });
    expect(parseXmpDate("2026-01-02T12:00:00Z")).toEqual({ epochMs: noon, zoned: true });
    expect(parseXmpDate("2026-01-02")).toEqual({ epochMs: Date.UTC(2026, 0, 2), zoned: false });
  });

  it("writes one form as the other, keeping the zone", () => {
    expect(pdfDateToXmp("D:20260102130000+01'00'")).toBe("2026-01-02T13:00:00+01:00");
    expect(pdfDateToXmp("D:20260102120000Z00'00'")).toBe("2026-01-02T12:00:00Z");
    expect(xmpDateToPdf("2026-01-02T13:00:00+01:00")).toBe("D:20260102130000+01'00'");
    expect(xmpDateToPdf("2026-01-02T12:00:00Z")).toBe("D:20260102120000+00'00'");
    expect(bothForms(new Date(noon))).toEqual({
      pdf: "D:20260102120000+00'00'",
      xmp: "2026-01-02T12:00:00Z",
    });
  });
});

describe("the XMP packet", () => {
  const title = { namespace: namespaces.dc, name: "title", form: "alt" } as const;
  const part = { namespace: namespaces.pdfaid, name: "part" };

  it("reads properties by namespace whatever the prefix, as attributes or elements", () => {
    const packet = XmpPacket.parse(
      `<x:xmpmeta xmlns:x="adobe:ns:meta/"><r:RDF xmlns:r="${namespaces.rdf}">` +
        `<r:Description r:about="" xmlns:id="${namespaces.pdfaid}" id:part="2"/>` +
        `<r:Description r:about="" xmlns:d="${namespaces.dc}"><d:title><r:Alt>` +
        `<r:li xml:lang="de">Titel</r:li><r:li xml:lang="x-default">Title</r:li></r:Alt></d:title></r:Description>` +
        "</r:RDF></x:xmpmeta>",
    );
    expect(packet.get(part)).toBe("2");
    expect(packet.get(title)).toBe("Title");
  });

  it("writes a property and reads it back after serializing", () => {
    const packet = XmpPacket.empty();
    packet.set(title, ["A report"]);
    const again = XmpPacket.parse(packet.serialize());
    expect(again.get(title)).toBe("A report");
    again.remove(title);
    expect(again.get(title)).toBeUndefined();
  });

  it("refuses text that is not a packet, saying why", () => {
    expect(() => XmpPacket.parse("<a>")).toThrow();
    expect(() => XmpPacket.parse("<a/>")).toThrow(/no rdf:RDF/);
  });
});
