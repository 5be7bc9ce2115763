// Measurements for PDF → Word / PowerPoint / Excel conversions, shared by the LibreOffice baseline
// (libreoffice-baseline.mjs) and the comparison with our own converter (compare.mjs). No npm dependencies:
// zip entries are read with `unzip` (Info-ZIP), PDFs with poppler's `pdftotext` and `pdfinfo`, XML with the
// small namespace-aware tokenizer below (prefixes are resolved through xmlns declarations, so `w:p`,
// `<p xmlns="…wordprocessingml…">` and strict-OOXML namespaces are all the same element).
//
//   import { docxText, docxStructure, pptxStructure, wordRecall, pdftotextOf } from "./metrics.mjs";
//   const { recall } = wordRecall(pdftotextOf("in.pdf"), docxText("out.docx"));
//
// Self-test: node --test bench/pdf-office/metrics.test.mjs
//
// Word sets and recall (wordSet / wordRecall) are @octavo/testing's (packages/testing/src/word-recall.ts, the
// rules are in its header), shared with the pdf-office tests; re-exported here from the built package, so
// build it first (`pnpm exec turbo run build`).
import { execFileSync } from "node:child_process";
import { posix } from "node:path";
import { wordRecall, wordSet } from "../../packages/testing/dist/index.js";

export { wordRecall, wordSet };

const MAX_BUFFER = 1024 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------------------
// Zip and XML plumbing

/** Names of the entries of a zip file. */
export function zipEntries(path) {
  return execFileSync("unzip", ["-Z1", path], { encoding: "utf8", maxBuffer: MAX_BUFFER })
    .split("\n")
    .filter(Boolean);
}

/** One zip entry as a UTF-8 string, or null if the zip has no such entry. */
export function zipText(path, entry, entries = zipEntries(path)) {
  if (!entries.includes(entry)) return null;
  // unzip treats its entry arguments as wildcards; escape [ ] * ? so the name matches only itself.
  const pattern = entry.replace(/[[\]*?]/g, "[$&]");
  return execFileSync("unzip", ["-p", path, pattern], { encoding: "utf8", maxBuffer: MAX_BUFFER });
}

// Short names for the namespaces we look at; transitional and strict OOXML map to the same short name.
const NAMESPACES = {
  "http://schemas.openxmlformats.org/wordprocessingml/2006/main": "w",
  "http://purl.oclc.org/ooxml/wordprocessingml/main": "w",
  "http://schemas.openxmlformats.org/drawingml/2006/main": "a",
  "http://purl.oclc.org/ooxml/drawingml/main": "a",
  "http://schemas.openxmlformats.org/presentationml/2006/main": "p",
  "http://purl.oclc.org/ooxml/presentationml/main": "p",
  "http://schemas.openxmlformats.org/spreadsheetml/2006/main": "s",
  "http://purl.oclc.org/ooxml/spreadsheetml/main": "s",
  "http://schemas.openxmlformats.org/officeDocument/2006/relationships": "r",
  "http://purl.oclc.org/ooxml/officeDocument/relationships": "r",
  "http://schemas.openxmlformats.org/package/2006/relationships": "rel",
  "http://schemas.openxmlformats.org/drawingml/2006/picture": "pic",
  "http://purl.oclc.org/ooxml/drawingml/picture": "pic",
  "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing": "wp",
  "http://purl.oclc.org/ooxml/drawingml/wordprocessingDrawing": "wp",
  "http://schemas.microsoft.com/office/word/2010/wordprocessingShape": "wps",
  "http://schemas.microsoft.com/office/word/2010/wordprocessingGroup": "wpg",
  "http://schemas.openxmlformats.org/markup-compatibility/2006": "mc",
  "urn:schemas-microsoft-com:vml": "v",
  "urn:schemas-microsoft-com:office:office": "o",
};
const XML_NS = "http://www.w3.org/XML/1998/namespace";

const ENTITIES = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
function decodeEntities(text) {
  if (!text.includes("&")) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, name) => {
    if (name[0] === "#") {
      const code = name[1] === "x" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name] ?? whole;
  });
}

function qualify(qname, scope, isAttribute) {
  const colon = qname.indexOf(":");
  const prefix = colon < 0 ? "" : qname.slice(0, colon);
  const local = colon < 0 ? qname : qname.slice(colon + 1);
  // Unprefixed attributes are in no namespace; unprefixed elements are in the default namespace.
  if (isAttribute && colon < 0) return local;
  const uri = prefix === "xml" ? XML_NS : scope[prefix];
  if (uri === undefined || uri === "") return colon < 0 ? local : qname;
  const short = NAMESPACES[uri];
  return short ? `${short}:${local}` : `{${uri}}${local}`;
}

const TOKEN =
  /<!--[\s\S]*?-->|<!\[CDATA\[([\s\S]*?)\]\]>|<\?[\s\S]*?\?>|<!DOCTYPE[^>]*>|<(\/?)([^\s/>!?]+)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|([^<]+)/g;
const ATTRIBUTE = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/**
 * Walks an XML string and calls `visit.open(name, attrs, path)`, `visit.close(name, path)` and
 * `visit.text(text, path)`. Names are "short:local" for the namespaces in NAMESPACES (`w:p`, `a:t`, `s:c`,
 * whatever prefix the file uses), "{uri}local" for other namespaces; attributes are keyed the same way
 * (`r:id`) or by bare name when unprefixed. `path` is the stack of open element names (the element itself
 * included in open/close). Content inside `mc:Fallback`, and every `mc:Choice` after the first, is skipped,
 * so text that a producer writes twice (DrawingML + VML fallback) is seen once.
 */
export function walkXml(xml, visit) {
  const path = [];
  const scopes = [{ "": "", xml: XML_NS }];
  let skipDepth = 0; // > 0 while inside a skipped subtree: the depth at which it started
  const choiceTaken = []; // per open mc:AlternateContent: whether a Choice was already taken
  for (const match of xml.matchAll(TOKEN)) {
    const [, cdata, slash, qname, attrText, selfClosing, text] = match;
    if (text !== undefined || cdata !== undefined) {
      if (!skipDepth && path.length && visit.text) {
        visit.text(cdata !== undefined ? cdata : decodeEntities(text), path);
      }
      continue;
    }
    if (qname === undefined) continue; // comment, processing instruction, doctype
    if (slash) {
      closeElement();
      continue;
    }
    const parent = scopes[scopes.length - 1];
    let scope = parent;
    const raw = [];
    for (const [, key, v1, v2] of (attrText ?? "").matchAll(ATTRIBUTE)) {
      const value = decodeEntities(v1 ?? v2 ?? "");
      if (key === "xmlns" || key.startsWith("xmlns:")) {
        if (scope === parent) scope = { ...parent };
        scope[key === "xmlns" ? "" : key.slice(6)] = value;
      } else raw.push([key, value]);
    }
    const name = qualify(qname, scope, false);
    path.push(name);
    scopes.push(scope);
    if (!skipDepth) {
      if (name === "mc:Fallback") skipDepth = path.length;
      else if (name === "mc:Choice") {
        if (choiceTaken[choiceTaken.length - 1]) skipDepth = path.length;
        else choiceTaken[choiceTaken.length - 1] = true;
      }
    }
    if (!skipDepth) {
      if (name === "mc:AlternateContent") choiceTaken.push(false);
      const attrs = {};
      for (const [key, value] of raw) attrs[qualify(key, scope, true)] = value;
      visit.open?.(name, attrs, path);
    }
    if (selfClosing) closeElement();
  }

  function closeElement() {
    const name = path[path.length - 1];
    if (skipDepth && path.length === skipDepth) skipDepth = 0;
    else if (!skipDepth) {
      if (name === "mc:AlternateContent") choiceTaken.pop();
      visit.close?.(name, path);
    }
    path.pop();
    scopes.pop();
  }
}

/** Relationships of a part: Map Id → { target (resolved zip path, or the URL if external), type }. */
export function relationships(path, part, entries = zipEntries(path)) {
  const dir = posix.dirname(part);
  const xml = zipText(path, posix.join(dir, "_rels", `${posix.basename(part)}.rels`), entries);
  const map = new Map();
  if (!xml) return map;
  walkXml(xml, {
    open(name, attrs) {
      if (name !== "rel:Relationship") return;
      const external = attrs.TargetMode === "External";
      const target = attrs.Target ?? "";
      const resolved = external
        ? target
        : target.startsWith("/")
          ? target.slice(1)
          : posix.normalize(posix.join(dir, target));
      map.set(attrs.Id, { target: resolved, type: attrs.Type ?? "", external });
    },
  });
  return map;
}

const share = (part, whole) => (whole > 0 ? part / whole : null);

// ---------------------------------------------------------------------------------------------------------
// DOCX

/** Text of one WordprocessingML part: paragraphs end with "\n", tabs and breaks kept. */
function wordprocessingText(xml) {
  let out = "";
  walkXml(xml, {
    open(name) {
      if (name === "w:tab" || name === "w:ptab") out += "\t";
      else if (name === "w:br" || name === "w:cr") out += "\n";
      else if (name === "w:noBreakHyphen") out += "-";
    },
    close(name) {
      if (name === "w:p") out += "\n";
      else if (name === "w:tc") out += "\t";
    },
    text(text, path) {
      // w:t only: w:delText (deleted revisions) and w:instrText (field codes) are not visible text.
      if (path[path.length - 1] === "w:t") out += text;
    },
  });
  return out;
}

/** The text parts of a DOCX: body first, then headers, footers, footnotes, endnotes. */
function docxTextParts(entries) {
  const order = (name) => {
    if (name === "word/document.xml") return 0;
    if (/^word\/header\d*\.xml$/.test(name)) return 1;
    if (/^word\/footer\d*\.xml$/.test(name)) return 2;
    if (name === "word/footnotes.xml") return 3;
    if (name === "word/endnotes.xml") return 4;
    return -1;
  };
  return entries.filter((name) => order(name) >= 0).sort((a, b) => order(a) - order(b) || a.localeCompare(b));
}

/**
 * All visible text of a DOCX: word/document.xml (including text boxes and frames) plus headers, footers,
 * footnotes and endnotes. Comments, deleted revisions and field codes are left out.
 */
export function docxText(path) {
  const entries = zipEntries(path);
  return docxTextParts(entries)
    .map((part) => wordprocessingText(zipText(path, part, entries)))
    .join("\n");
}

/**
 * Structure of word/document.xml. A paragraph "has text" when its own runs (not those of a text box
 * anchored in it) contain non-blank text. Each such paragraph is exactly one of:
 *   inTextBoxes — inside w:txbxContent / wps:txbx / v:textbox (DrawingML or VML text boxes and shapes),
 *   inFrames    — a w:framePr in its own w:pPr (a positioned text frame),
 *   flowing     — everything else: body paragraphs, including those in table cells (also counted in
 *                 inTables).
 * flowingShare = flowing / paragraphs; flowingCharShare weights by non-blank characters.
 * tables counts every w:tbl (nested ones too), topLevelTables only those not inside another table;
 * images counts pic:pic and VML v:imagedata (fallbacks skipped), media the files under word/media/.
 */
export function docxStructure(path) {
  const entries = zipEntries(path);
  const xml = zipText(path, "word/document.xml", entries);
  if (xml === null) throw new Error(`${path}: no word/document.xml`);
  const counts = {
    paragraphs: 0,
    flowing: 0,
    inFrames: 0,
    inTextBoxes: 0,
    inTables: 0,
    emptyParagraphs: 0,
    chars: 0,
    flowingChars: 0,
    frameChars: 0,
    textBoxChars: 0,
    tables: 0,
    topLevelTables: 0,
    images: 0,
    media: entries.filter((name) => name.startsWith("word/media/") && !name.endsWith("/")).length,
    sections: 0,
    pageBreaks: 0,
  };
  const paragraphs = []; // stack of { chars, frame, box, table }
  let boxDepth = 0;
  let tableDepth = 0;
  const isBox = (name) => name === "w:txbxContent" || name === "wps:txbx" || name === "v:textbox";
  walkXml(xml, {
    open(name, attrs, stack) {
      if (isBox(name)) boxDepth += 1;
      else if (name === "w:tbl") {
        counts.tables += 1;
        if (tableDepth === 0) counts.topLevelTables += 1;
        tableDepth += 1;
      } else if (name === "w:p") {
        paragraphs.push({ chars: 0, frame: false, box: boxDepth > 0, table: tableDepth > 0 });
      } else if (name === "w:framePr") {
        // Only the paragraph's own properties (not w:pPrChange, the record of earlier properties).
        const n = stack.length;
        if (stack[n - 2] === "w:pPr" && stack[n - 3] === "w:p" && paragraphs.length) {
          paragraphs[paragraphs.length - 1].frame = true;
        }
      } else if (name === "pic:pic" || name === "v:imagedata") counts.images += 1;
      else if (name === "w:sectPr") counts.sections += 1;
      else if (name === "w:br" && attrs["w:type"] === "page") counts.pageBreaks += 1;
    },
    close(name) {
      if (isBox(name)) boxDepth -= 1;
      else if (name === "w:tbl") tableDepth -= 1;
      else if (name === "w:p") {
        const p = paragraphs.pop();
        if (!p) return;
        if (p.chars === 0) {
          counts.emptyParagraphs += 1;
          return;
        }
        counts.paragraphs += 1;
        counts.chars += p.chars;
        if (p.box) {
          counts.inTextBoxes += 1;
          counts.textBoxChars += p.chars;
        } else if (p.frame) {
          counts.inFrames += 1;
          counts.frameChars += p.chars;
        } else {
          counts.flowing += 1;
          counts.flowingChars += p.chars;
          if (p.table) counts.inTables += 1;
        }
      }
    },
    text(text, stack) {
      if (stack[stack.length - 1] !== "w:t" || !paragraphs.length) return;
      paragraphs[paragraphs.length - 1].chars += text.replace(/\s+/g, "").length;
    },
  });
  return {
    ...counts,
    flowingShare: share(counts.flowing, counts.paragraphs),
    flowingCharShare: share(counts.flowingChars, counts.chars),
  };
}

// ---------------------------------------------------------------------------------------------------------
// PPTX

const EMU_PER_PT = 12700;

/** Slide part names in presentation order, and the slide size in points. */
function pptxSlides(path, entries) {
  const xml = zipText(path, "ppt/presentation.xml", entries);
  if (xml === null) throw new Error(`${path}: no ppt/presentation.xml`);
  const rels = relationships(path, "ppt/presentation.xml", entries);
  const slides = [];
  let size = null;
  walkXml(xml, {
    open(name, attrs) {
      if (name === "p:sldId") {
        const rel = rels.get(attrs["r:id"]);
        if (rel) slides.push(rel.target);
      } else if (name === "p:sldSz") {
        size = { widthPt: Number(attrs.cx) / EMU_PER_PT, heightPt: Number(attrs.cy) / EMU_PER_PT };
      }
    },
  });
  return { slides, size };
}

/**
 * One slide: text in shapes (p:sp with a p:txBody), text in tables and other graphic frames, pictures with
 * their areas. Group transforms are ignored (picture areas are the pictures' own extents).
 */
function analyseSlide(xml) {
  const slide = { text: "", textShapes: 0, shapeChars: 0, tableChars: 0, otherChars: 0, pictures: [] };
  const shapes = []; // stack of { chars }
  let picture = null;
  walkXml(xml, {
    open(name, attrs, stack) {
      if (name === "p:sp") shapes.push({ chars: 0 });
      else if (name === "p:pic") picture = { cx: 0, cy: 0 };
      else if (name === "a:ext" && picture && stack[stack.length - 2] === "a:xfrm" && !picture.cx) {
        picture.cx = Number(attrs.cx) || 0;
        picture.cy = Number(attrs.cy) || 0;
      } else if (name === "a:br") slide.text += "\n";
    },
    close(name, stack) {
      if (name === "p:sp") {
        const shape = shapes.pop();
        if (shape?.chars) slide.textShapes += 1;
      } else if (name === "p:pic" && picture) {
        slide.pictures.push(picture);
        picture = null;
      } else if (name === "a:p") slide.text += "\n";
      else if (name === "a:tc") slide.text += "\t";
      else if (name === "p:txBody" && stack.includes("p:sp")) slide.text += "\n";
    },
    text(text, stack) {
      if (stack[stack.length - 1] !== "a:t") return;
      slide.text += text;
      const chars = text.replace(/\s+/g, "").length;
      if (shapes.length && stack.includes("p:txBody")) {
        shapes[shapes.length - 1].chars += chars;
        slide.shapeChars += chars;
      } else if (stack.includes("a:tbl")) slide.tableChars += chars;
      else slide.otherChars += chars;
    },
  });
  return slide;
}

/** All text on the slides of a PPTX, in slide order (shapes, tables; not notes, layouts or masters). */
export function pptxText(path) {
  const entries = zipEntries(path);
  const { slides } = pptxSlides(path, entries);
  return slides.map((part) => analyseSlide(zipText(path, part, entries) ?? "").text).join("\n\f");
}

/**
 * Structure of a PPTX: slides (count), slideSize {widthPt, heightPt} (one size for the whole
 * presentation, p:sldSz), textShapes (p:sp whose p:txBody has non-blank text) in all and per slide,
 * characters in text shapes / tables / elsewhere, textInBoxesShare = characters in text shapes over all
 * slide text characters, pictures (p:pic) in all and per slide, pictureCoverage = mean over slides of the
 * picture area over the slide area (capped at 1), and fullSlidePictures = pictures covering ≥ 90 % of
 * their slide (a page pasted as an image).
 */
export function pptxStructure(path) {
  const entries = zipEntries(path);
  const { slides, size } = pptxSlides(path, entries);
  const slideArea = size ? size.widthPt * size.heightPt * EMU_PER_PT * EMU_PER_PT : 0;
  const perSlide = slides.map((part) => analyseSlide(zipText(path, part, entries) ?? ""));
  const sum = (key) => perSlide.reduce((total, slide) => total + slide[key], 0);
  const shapeChars = sum("shapeChars");
  const allChars = shapeChars + sum("tableChars") + sum("otherChars");
  const coverage = perSlide.map((slide) =>
    slideArea ? Math.min(1, slide.pictures.reduce((a, p) => a + p.cx * p.cy, 0) / slideArea) : 0,
  );
  return {
    slides: slides.length,
    slideSize: size,
    textShapes: sum("textShapes"),
    textShapesPerSlide: perSlide.map((slide) => slide.textShapes),
    shapeChars,
    tableChars: sum("tableChars"),
    otherChars: sum("otherChars"),
    textInBoxesShare: share(shapeChars, allChars),
    pictures: perSlide.reduce((total, slide) => total + slide.pictures.length, 0),
    picturesPerSlide: perSlide.map((slide) => slide.pictures.length),
    pictureCoverage: share(
      coverage.reduce((a, b) => a + b, 0),
      coverage.length,
    ),
    fullSlidePictures: perSlide.reduce(
      (total, slide) =>
        total + slide.pictures.filter((p) => slideArea && (p.cx * p.cy) / slideArea >= 0.9).length,
      0,
    ),
  };
}

// ---------------------------------------------------------------------------------------------------------
// XLSX

/** "B3" → { row: 2, col: 1 } (zero-based). */
export function cellAddress(ref) {
  const match = /^\$?([A-Za-z]+)\$?(\d+)$/.exec(ref);
  if (!match) return null;
  let col = 0;
  for (const letter of match[1].toUpperCase()) col = col * 26 + (letter.charCodeAt(0) - 64);
  return { row: Number(match[2]) - 1, col: col - 1 };
}

/** Text of a shared string or inline string (runs concatenated, phonetic hints left out). */
function collectStrings(xml, itemName) {
  const items = [];
  let current = null;
  walkXml(xml, {
    open(name) {
      if (name === itemName) current = "";
    },
    close(name) {
      if (name === itemName) {
        items.push(current);
        current = null;
      }
    },
    text(text, stack) {
      if (current !== null && stack[stack.length - 1] === "s:t" && !stack.includes("s:rPh")) current += text;
    },
  });
  return items;
}

/**
 * The sheets of an XLSX in workbook order: [{ name, part, rows, merges }]. rows is a dense grid
 * (rows[r][c], zero-based, from A1 to the last used cell) of values: shared and inline strings resolved,
 * numbers as numbers (dates stay serial numbers, styles are not read), booleans as booleans, errors as
 * their "#…" string, formulas as their cached value, empty cells null. merges are
 * { ref: "A1:C1", top, left, bottom, right } (zero-based, inclusive).
 */
export function xlsxSheets(path) {
  const entries = zipEntries(path);
  const workbook = zipText(path, "xl/workbook.xml", entries);
  if (workbook === null) throw new Error(`${path}: no xl/workbook.xml`);
  const rels = relationships(path, "xl/workbook.xml", entries);
  const sharedPart = [...rels.values()].find((rel) => rel.type.endsWith("/sharedStrings"))?.target;
  const sharedXml = zipText(path, sharedPart ?? "xl/sharedStrings.xml", entries);
  const shared = sharedXml ? collectStrings(sharedXml, "s:si") : [];
  const sheets = [];
  walkXml(workbook, {
    open(name, attrs) {
      if (name === "s:sheet") sheets.push({ name: attrs.name, part: rels.get(attrs["r:id"])?.target });
    },
  });
  return sheets.map((sheet) => ({
    ...sheet,
    ...readSheet(zipText(path, sheet.part, entries) ?? "", shared),
  }));
}

function readSheet(xml, shared) {
  const cells = []; // [row, col, value]
  const merges = [];
  let rowIndex = -1;
  let colIndex = -1;
  let cell = null; // { row, col, type, v, inline }
  walkXml(xml, {
    open(name, attrs) {
      if (name === "s:row") {
        rowIndex = attrs.r ? Number(attrs.r) - 1 : rowIndex + 1;
        colIndex = -1;
      } else if (name === "s:c") {
        const at = attrs.r ? cellAddress(attrs.r) : null;
        if (at) rowIndex = at.row;
        colIndex = at ? at.col : colIndex + 1;
        cell = { row: rowIndex, col: colIndex, type: attrs.t ?? "n", v: null, inline: null };
      } else if (name === "s:is" && cell) cell.inline = "";
      else if (name === "s:mergeCell" && attrs.ref) {
        const [from, to = from] = attrs.ref.split(":");
        const a = cellAddress(from);
        const b = cellAddress(to);
        if (a && b) merges.push({ ref: attrs.ref, top: a.row, left: a.col, bottom: b.row, right: b.col });
      }
    },
    close(name) {
      if (name !== "s:c" || !cell) return;
      let value = null;
      if (cell.type === "inlineStr") value = cell.inline;
      else if (cell.v !== null) {
        if (cell.type === "s") value = shared[Number(cell.v)] ?? null;
        else if (cell.type === "b") value = cell.v.trim() === "1";
        else if (cell.type === "str" || cell.type === "e" || cell.type === "d") value = cell.v;
        else value = Number(cell.v);
      }
      if (value !== null && value !== "") cells.push([cell.row, cell.col, value]);
      cell = null;
    },
    text(text, stack) {
      if (!cell) return;
      const name = stack[stack.length - 1];
      if (name === "s:v") cell.v = (cell.v ?? "") + text;
      else if (name === "s:t" && cell.inline !== null && !stack.includes("s:rPh")) cell.inline += text;
    },
  });
  const height = Math.max(0, ...cells.map(([r]) => r + 1), ...merges.map((m) => m.bottom + 1));
  const width = Math.max(0, ...cells.map(([, c]) => c + 1), ...merges.map((m) => m.right + 1));
  const rows = Array.from({ length: height }, () => Array(width).fill(null));
  for (const [r, c, value] of cells) rows[r][c] = value;
  return { rows, merges };
}

/** All cell text of an XLSX (sheets in order, cells tab-separated, rows on lines). */
export function xlsxText(path) {
  return xlsxSheets(path)
    .map((sheet) =>
      sheet.rows
        .map((row) => row.map((value) => (value === null ? "" : String(value))).join("\t"))
        .join("\n"),
    )
    .join("\n\f");
}

// ---------------------------------------------------------------------------------------------------------
// PDF side (poppler)

/** `pdftotext -layout -enc UTF-8 pdf -`. */
export function pdftotextOf(pdf, { timeoutMs = 120_000 } = {}) {
  return execFileSync("pdftotext", ["-layout", "-enc", "UTF-8", pdf, "-"], {
    encoding: "utf8",
    maxBuffer: MAX_BUFFER,
    timeout: timeoutMs,
    stdio: ["ignore", "pipe", "ignore"],
  });
}

function pdfinfo(pdf, args = []) {
  return execFileSync("pdfinfo", [...args, pdf], {
    encoding: "utf8",
    maxBuffer: MAX_BUFFER,
    stdio: ["ignore", "pipe", "ignore"],
  });
}

/** Number of pages, from pdfinfo. */
export function pageCount(pdf) {
  const match = /^Pages:\s+(\d+)/m.exec(pdfinfo(pdf));
  if (!match) throw new Error(`${pdf}: pdfinfo reports no page count`);
  return Number(match[1]);
}

/** Whether pdfinfo reports the file as encrypted. */
export function isEncrypted(pdf) {
  return /^Encrypted:\s+yes/m.test(pdfinfo(pdf));
}

/** Page sizes in points (as displayed, /Rotate applied), from `pdfinfo -f 1 -l N`. */
export function pageSizes(pdf) {
  const out = pdfinfo(pdf, ["-f", "1", "-l", String(pageCount(pdf))]);
  const sizes = [];
  for (const match of out.matchAll(/^Page\s+\d+\s+size:\s+([\d.]+) x ([\d.]+) pts.*$/gm)) {
    sizes.push({ widthPt: Number(match[1]), heightPt: Number(match[2]) });
  }
  const rotations = [...out.matchAll(/^Page\s+\d+\s+rot:\s+(\d+)/gm)].map((m) => Number(m[1]));
  return sizes.map((size, i) =>
    rotations[i] % 180 === 90 ? { widthPt: size.heightPt, heightPt: size.widthPt } : size,
  );
}
