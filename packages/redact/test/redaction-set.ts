// The generated half of Redact PDF's test set: one page of prose per way a PDF can write its text, each
// with the same four targets, made with MuPDF.js. Used by redact.test.ts and bench/redact-recall.mjs (Node
// strips the types), so a figure the bench prints and a threshold a test asserts mean the same thing.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { loadMupdf, type Mupdf, type MupdfModule } from "@octavo/mupdf";

export interface GeneratedCase {
  /** What it exercises: "type3", "cid", "ligatures", "kerning", "split-shows", "form-xobject", … */
  name: string;
  path: string;
  /** What to redact: each occurs at least twice on the page. */
  targets: string[];
  /**
   * Byte strings that a decompressed content stream holds only while a target's text is there (the text
   * itself, or its glyph ids in hex for a CID font); empty where the text is cut into pieces too small to
   * tell from other words' (one show operator per letter).
   */
  traces: string[];
}

export const targets = ["Quillfeather", "Marrowbone", "confidential", "affidavit"];

/** Prose with each target twice; "office", "final", "files" and "inflow" keep the ligatures company. */
export const prose = [
  "The harbour office opened at seven and the clerks sorted the morning post.",
  "Quillfeather signed the ledger before the tide turned against the boats.",
  "Every parcel carried a stamp, a weight and the name of its sender.",
  "A confidential note from Marrowbone asked for the files on the west pier.",
  "The inspector counted barrels of salt fish and sacks of grain twice.",
  "Rain fell on the slate roofs while the affidavit waited on the desk.",
  "Nobody remembered who had left the lantern burning in the archive.",
  "Marrowbone arrived late, shook the water from his coat and sat down.",
  "The final tally showed forty crates more than the manifest listed.",
  "Quillfeather wrote a short reply and sealed it with green wax.",
  "By noon the fog had lifted and the ferry left for the islands.",
  "The confidential ledger was locked in the iron safe overnight.",
  "An affidavit from the harbour master confirmed the inflow of goods.",
  "Gulls circled the fish market until the last stall closed at dusk.",
];

const dejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/** Writes every case into `dir`. */
export async function redactionSet(dir: string): Promise<GeneratedCase[]> {
  const mupdf = await loadMupdf();
  const cases: GeneratedCase[] = [];
  for (const [name, make] of Object.entries(makers)) {
    const doc = new mupdf.PDFDocument();
    try {
      const traces = make(mupdf, doc);
      const path = join(dir, `generated-${name}.pdf`);
      await writeFile(path, doc.saveToBuffer("compress").asUint8Array());
      cases.push({ name, path, targets, traces });
    } finally {
      doc.destroy();
    }
  }
  return cases;
}

type Maker = (mupdf: MupdfModule, doc: Mupdf.PDFDocument) => string[];

const literal = (text: string) => `(${text.replace(/[()\\]/g, "\\$&")})`;
const lineY = (index: number) => 740 - index * 18;

const makers: Record<string, Maker> = {
  /** Whole strings in one Tj a line: the plain case, and the byte search's. */
  plain: (mupdf, doc) => {
    const lines = prose.map((line, index) => `BT /F1 11 Tf 60 ${lineY(index)} Td ${literal(line)} Tj ET`);
    addPage(doc, helvetica(mupdf, doc), lines.join("\n"));
    return targets;
  },
  /** A kerning adjustment between every two letters: TJ arrays, as typesetters write them. */
  kerning: (mupdf, doc) => {
    const kerned = (line: string) =>
      `[${[...line].map((char, index) => `${literal(char)} ${index % 3 === 0 ? -12 : 8}`).join(" ")}] TJ`;
    const lines = prose.map((line, index) => `BT /F1 11 Tf 60 ${lineY(index)} Td ${kerned(line)} ET`);
    addPage(doc, helvetica(mupdf, doc), lines.join("\n"));
    return [];
  },
  /** A show operator per letter, and words set apart by a move (an empty TJ's adjustment), not a space. */
  "split-shows": (mupdf, doc) => {
    const lines = prose.map((line, index) => {
      const words = line
        .split(" ")
        .map((word) => `${[...word].map((char) => `${literal(char)} Tj`).join(" ")}`);
      return `BT /F1 11 Tf 60 ${lineY(index)} Td ${words.join(" [-280] TJ ")} ET`;
    });
    addPage(doc, helvetica(mupdf, doc), lines.join("\n"));
    return [];
  },
  /** Character and word spacing (Tc, Tw) on every line. */
  spacing: (mupdf, doc) => {
    const lines = prose.map(
      (line, index) => `BT /F1 10 Tf 0.6 Tc 2.5 Tw 50 ${lineY(index)} Td ${literal(line)} Tj ET`,
    );
    addPage(doc, helvetica(mupdf, doc), lines.join("\n"));
    return targets;
  },
  /** The prose in a Form XObject the page draws twice, once half as large. */
  "form-xobject": (mupdf, doc) => {
    const resources = helvetica(mupdf, doc);
    const lines = prose.map((line, index) => `BT /F1 11 Tf 0 ${300 - index * 18} Td ${literal(line)} Tj ET`);
    const formDict = doc.newDictionary();
    formDict.put("Type", doc.newName("XObject"));
    formDict.put("Subtype", doc.newName("Form"));
    formDict.put("BBox", numbers(doc, [0, 0, 520, 320]));
    formDict.put("Resources", resources);
    const form = doc.addStream(lines.join("\n"), formDict);
    const pageResources = helvetica(mupdf, doc);
    const xobjects = doc.newDictionary();
    xobjects.put("Fx", form);
    pageResources.put("XObject", xobjects);
    addPage(doc, pageResources, "q 1 0 0 1 50 440 cm /Fx Do Q\nq 0.5 0 0 0.5 50 200 cm /Fx Do Q");
    return targets;
  },
  /** A page turned a quarter (/Rotate 90), two of its lines set upright on it (turned a quarter back). */
  rotated: (mupdf, doc) => {
    const lines = prose.map((line, index) =>
      index < 2
        ? `BT /F1 11 Tf 0 1 -1 0 ${560 - index * 18} 60 Tm ${literal(line)} Tj ET`
        : `BT /F1 11 Tf 60 ${lineY(index)} Td ${literal(line)} Tj ET`,
    );
    addPage(doc, helvetica(mupdf, doc), lines.join("\n"), 90);
    return targets;
  },
  /** A Type 3 font: every glyph a small drawing, named so text extraction can read it. */
  type3: (_mupdf, doc) => {
    const lines = prose.map((line, index) => `BT /F1 11 Tf 60 ${lineY(index)} Td ${literal(line)} Tj ET`);
    const resources = doc.newDictionary();
    const fonts = doc.newDictionary();
    fonts.put("F1", type3Font(doc));
    resources.put("Font", fonts);
    addPage(doc, resources, lines.join("\n"));
    return targets;
  },
  /** A CID font (Type0, Identity-H): the content holds glyph ids, two bytes each. */
  cid: (mupdf, doc) => cidPage(mupdf, doc, false),
  /** The CID font again, with "fi", "ffi" and "fl" set as ligature glyphs, one glyph for several letters. */
  ligatures: (mupdf, doc) => cidPage(mupdf, doc, true),
};

/** Resources with Helvetica as /F1. */
export function helvetica(mupdf: MupdfModule, doc: Mupdf.PDFDocument): Mupdf.PDFObject {
  const resources = doc.newDictionary();
  const fonts = doc.newDictionary();
  fonts.put("F1", doc.addSimpleFont(new mupdf.Font("Helvetica"), "Latin"));
  resources.put("Font", fonts);
  return resources;
}

function addPage(
  doc: Mupdf.PDFDocument,
  resources: Mupdf.PDFObject,
  content: string,
  rotate: 0 | 90 = 0,
): void {
  doc.insertPage(-1, doc.addPage([0, 0, 612, 792], rotate, resources, content));
}

function numbers(doc: Mupdf.PDFDocument, values: number[]): Mupdf.PDFObject {
  const array = doc.newArray();
  for (const value of values) array.push(doc.newReal(value));
  return array;
}

const ligatureOf: [string, number][] = [
  ["ffi", 0xfb03],
  ["fi", 0xfb01],
  ["fl", 0xfb02],
];

function cidPage(mupdf: MupdfModule, doc: Mupdf.PDFDocument, ligatures: boolean): string[] {
  const font = new mupdf.Font("DejaVuSans", dejaVu);
  const resources = doc.newDictionary();
  const fonts = doc.newDictionary();
  fonts.put("F1", doc.addFont(font));
  resources.put("Font", fonts);
  const hex = (gids: number[]) => gids.map((gid) => gid.toString(16).padStart(4, "0").toUpperCase()).join("");
  const glyphs = (text: string): number[] => {
    const gids: number[] = [];
    for (let at = 0; at < text.length; ) {
      const ligature = ligatures ? ligatureOf.find(([letters]) => text.startsWith(letters, at)) : undefined;
      const gid = ligature ? font.encodeCharacter(ligature[1]) : 0;
      if (ligature && gid > 0) {
        gids.push(gid);
        at += ligature[0].length;
      } else {
        gids.push(font.encodeCharacter(text.codePointAt(at) ?? 32));
        at += 1;
      }
    }
    return gids;
  };
  const lines = prose.map((line, index) => `BT /F1 11 Tf 60 ${lineY(index)} Td <${hex(glyphs(line))}> Tj ET`);
  addPage(doc, resources, lines.join("\n"));
  return targets.map((target) => hex(glyphs(target)));
}

/** Letters, digits and a little punctuation, each glyph a box as wide as its advance. */
function type3Font(doc: Mupdf.PDFDocument): Mupdf.PDFObject {
  const named: [number, string][] = [
    [32, "space"],
    [44, "comma"],
    [45, "hyphen"],
    [46, "period"],
    ...Array.from({ length: 10 }, (_, digit): [number, string] => [
      48 + digit,
      ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"][digit] ?? "",
    ]),
    ...Array.from({ length: 26 }, (_, letter): [number, string] => [
      65 + letter,
      String.fromCharCode(65 + letter),
    ]),
    ...Array.from({ length: 26 }, (_, letter): [number, string] => [
      97 + letter,
      String.fromCharCode(97 + letter),
    ]),
  ];
  const width = (code: number) => (code === 32 ? 250 : code >= 97 ? 480 : 600);
  const procs = doc.newDictionary();
  const differences = doc.newArray();
  for (const [code, name] of named) {
    const w = width(code);
    const drawing =
      code === 32
        ? `${w} 0 d0`
        : `${w} 0 40 0 ${w - 40} 600 d1 40 0 ${w - 80} ${code >= 97 ? 450 : 600} re f`;
    procs.put(name, doc.addStream(drawing, doc.newDictionary()));
    differences.push(doc.newInteger(code));
    differences.push(doc.newName(name));
  }
  const encoding = doc.newDictionary();
  encoding.put("Type", doc.newName("Encoding"));
  encoding.put("Differences", differences);
  const font = doc.newDictionary();
  font.put("Type", doc.newName("Font"));
  font.put("Subtype", doc.newName("Type3"));
  font.put("FontBBox", numbers(doc, [0, 0, 600, 600]));
  font.put("FontMatrix", numbers(doc, [0.001, 0, 0, 0.001, 0, 0]));
  font.put("CharProcs", procs);
  font.put("Encoding", encoding);
  font.put("FirstChar", doc.newInteger(32));
  font.put("LastChar", doc.newInteger(122));
  const widths = doc.newArray();
  for (let code = 32; code <= 122; code += 1) widths.push(doc.newInteger(width(code)));
  font.put("Widths", widths);
  font.put("Resources", doc.newDictionary());
  return doc.addObject(font);
}
