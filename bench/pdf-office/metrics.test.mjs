// Self-test of metrics.mjs on hand-written DOCX/PPTX/XLSX packages (zipped with python3's zipfile):
//
//   node --test bench/pdf-office/metrics.test.mjs
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import {
  docxStructure,
  docxText,
  pptxStructure,
  pptxText,
  wordRecall,
  wordSet,
  xlsxSheets,
  xlsxText,
} from "./metrics.mjs";

const work = mkdtempSync(join(tmpdir(), "octavo-pdf-office-metrics-"));
after(() => rmSync(work, { recursive: true, force: true }));

/** Writes a zip with the given { entry: text } to work/name and returns its path. */
function zip(name, files) {
  const path = join(work, name);
  execFileSync(
    "python3",
    [
      "-c",
      "import json,sys,zipfile\nz=zipfile.ZipFile(sys.argv[1],'w')\nfor k,v in json.load(sys.stdin).items(): z.writestr(k,v)\nz.close()",
      path,
    ],
    { input: JSON.stringify(files) },
  );
  return path;
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const NS =
  'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" ' +
  'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" ' +
  'xmlns:v="urn:schemas-microsoft-com:vml" ' +
  'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"';

test("docx: text and structure, text boxes counted once, frames, tables, images", () => {
  const document = `<?xml version="1.0" encoding="UTF-8"?>
<w:document ${W} ${NS}><w:body>
  <w:p><w:r><w:t xml:space="preserve">Body &amp; more </w:t></w:r><w:r><w:t>text</w:t></w:r>
    <w:r><mc:AlternateContent>
      <mc:Choice Requires="wps"><w:drawing><wps:wsp><wps:txbx><w:txbxContent>
        <w:p><w:r><w:t>Boxed</w:t></w:r></w:p></w:txbxContent></wps:txbx></wps:wsp></w:drawing></mc:Choice>
      <mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent>
        <w:p><w:r><w:t>Boxed</w:t></w:r></w:p></w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback>
    </mc:AlternateContent></w:r></w:p>
  <w:p><w:pPr><w:framePr w:x="100" w:y="200"/></w:pPr><w:r><w:t>Framed</w:t></w:r></w:p>
  <w:p><w:pPr><w:pPrChange><w:pPr><w:framePr/></w:pPr></w:pPrChange></w:pPr><w:r><w:t>Was</w:t></w:r>
    <w:del><w:r><w:delText>deleted</w:delText></w:r></w:del><w:r><w:instrText>PAGE</w:instrText></w:r></w:p>
  <w:tbl><w:tr><w:tc><w:p><w:r><w:t>Cell</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
  <w:p/><w:p><w:r><w:t xml:space="preserve">   </w:t></w:r></w:p>
  <w:p><w:r><w:drawing><pic:pic/></w:drawing></w:r></w:p>
  <w:sectPr/></w:body></w:document>`;
  const header = `<w:hdr ${W}><w:p><w:r><w:t>Header</w:t></w:r></w:p></w:hdr>`;
  const path = zip("a.docx", {
    "word/document.xml": document,
    "word/header1.xml": header,
    "word/media/image1.png": "x",
  });
  const text = docxText(path);
  assert.match(text, /Body & more text/);
  assert.equal(text.match(/Boxed/g).length, 1);
  assert.match(text, /Framed/);
  assert.match(text, /Header/);
  assert.doesNotMatch(text, /deleted|PAGE/);
  assert.deepEqual(docxStructure(path), {
    paragraphs: 5,
    flowing: 3,
    inFrames: 1,
    inTextBoxes: 1,
    inTables: 1,
    emptyParagraphs: 3,
    chars: 13 + 5 + 6 + 3 + 4,
    flowingChars: 13 + 3 + 4,
    frameChars: 6,
    textBoxChars: 5,
    tables: 1,
    topLevelTables: 1,
    images: 1,
    media: 1,
    sections: 1,
    pageBreaks: 0,
    flowingShare: 3 / 5,
    flowingCharShare: 20 / 31,
  });
});

test("docx: a namespace prefix of its own or the default namespace both work", () => {
  const uri = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
  const path = zip("b.docx", {
    "word/document.xml": `<document xmlns="${uri}"><body><p><r><t>one</t></r></p>
      <x:p xmlns:x="${uri}"><x:r><x:t>two</x:t></x:r></x:p></body></document>`,
  });
  assert.equal(docxText(path).trim(), "one\ntwo");
  assert.equal(docxStructure(path).flowing, 2);
});

const P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
const A = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';
const R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const REL = 'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"';

test("pptx: slide order, size, text shapes, tables, pictures", () => {
  const shape = (text) =>
    `<p:sp><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sp>`;
  const picture = (cx, cy) =>
    `<p:pic><p:blipFill><a:blip><a:extLst><a:ext uri="x"/></a:extLst></a:blip></p:blipFill>` +
    `<p:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm></p:spPr></p:pic>`;
  const slide = (body) => `<p:sld ${P} ${A}><p:cSld><p:spTree>${body}</p:spTree></p:cSld></p:sld>`;
  const path = zip("a.pptx", {
    "ppt/presentation.xml": `<p:presentation ${P} ${R}><p:sldIdLst><p:sldId id="256" r:id="rId9"/>
      <p:sldId id="257" r:id="rId8"/></p:sldIdLst><p:sldSz cx="7772400" cy="10058400"/></p:presentation>`,
    "ppt/_rels/presentation.xml.rels": `<Relationships ${REL}>
      <Relationship Id="rId8" Type="slide" Target="slides/slide1.xml"/>
      <Relationship Id="rId9" Type="slide" Target="/ppt/slides/slide2.xml"/></Relationships>`,
    "ppt/slides/slide2.xml": slide(`${shape("First")}${shape(" ")}${picture(7772400, 10058400)}`),
    "ppt/slides/slide1.xml": slide(
      `<p:grpSp>${shape("Second")}</p:grpSp>${picture(100, 100)}<p:graphicFrame><a:graphic><a:graphicData>` +
        `<a:tbl><a:tr><a:tc><a:txBody><a:p><a:r><a:t>Cell</a:t></a:r></a:p></a:txBody></a:tc></a:tr></a:tbl>` +
        `</a:graphicData></a:graphic></p:graphicFrame>`,
    ),
  });
  assert.match(pptxText(path), /^First\n[\s\S]*Second[\s\S]*Cell/);
  const s = pptxStructure(path);
  assert.equal(s.slides, 2);
  assert.deepEqual(s.slideSize, { widthPt: 612, heightPt: 792 });
  assert.equal(s.textShapes, 2);
  assert.deepEqual(s.textShapesPerSlide, [1, 1]);
  assert.deepEqual(s.picturesPerSlide, [1, 1]);
  assert.equal(s.fullSlidePictures, 1);
  assert.equal(s.shapeChars, 11);
  assert.equal(s.tableChars, 4);
  assert.equal(s.textInBoxesShare, 11 / 15);
  assert.ok(s.pictureCoverage > 0.5 && s.pictureCoverage < 0.51);
});

test("xlsx: shared and inline strings, numbers, booleans, merges, default namespace", () => {
  const S = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
  const path = zip("a.xlsx", {
    "xl/workbook.xml": `<workbook ${S} ${R}><sheets><sheet name="Data" sheetId="1" r:id="rId1"/>
      <sheet name="Empty" sheetId="2" r:id="rId2"/></sheets></workbook>`,
    "xl/_rels/workbook.xml.rels": `<Relationships ${REL}>
      <Relationship Id="rId1" Type="http://x/worksheet" Target="worksheets/sheet1.xml"/>
      <Relationship Id="rId2" Type="http://x/worksheet" Target="worksheets/sheet2.xml"/>
      <Relationship Id="rId3" Type="http://x/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    "xl/sharedStrings.xml": `<sst ${S}><si><t>Name</t></si><si><r><t>Ri</t></r><r><t>ch</t></r>
      <rPh><t>phonetic</t></rPh></si></sst>`,
    "xl/worksheets/sheet1.xml": `<worksheet ${S}><sheetData>
      <row r="1"><c r="A1" t="s"><v>0</v></c><c t="s"><v>1</v></c></row>
      <row r="3"><c r="A3"><v>1.5</v></c><c r="B3" t="b"><v>1</v></c><c r="C3" t="inlineStr"><is><t>in</t></is></c>
        <c r="D3" t="str"><f>A3&amp;"x"</f><v>1.5x</v></c></row>
      </sheetData><mergeCells count="1"><mergeCell ref="A1:B2"/></mergeCells></worksheet>`,
    "xl/worksheets/sheet2.xml": `<worksheet ${S}><sheetData/></worksheet>`,
  });
  const [data, empty] = xlsxSheets(path);
  assert.equal(data.name, "Data");
  assert.deepEqual(data.rows, [
    ["Name", "Rich", null, null],
    [null, null, null, null],
    [1.5, true, "in", "1.5x"],
  ]);
  assert.deepEqual(data.merges, [{ ref: "A1:B2", top: 0, left: 0, bottom: 1, right: 1 }]);
  assert.deepEqual(empty.rows, []);
  assert.match(xlsxText(path), /Name\tRich/);
});

// The rules themselves are tested with their implementation (packages/testing/test/word-recall.test.ts);
// this checks that the bench gets them from there.
test("word sets and recall are @octavo/testing's", () => {
  assert.deepEqual([...wordSet("The ﬁrst well-known 日本")], ["the", "first", "well", "known", "日", "本"]);
  const r = wordRecall("An exam-\nple of well-known words, words.", "an example of well known");
  assert.deepEqual(r, { recall: 6 / 7, missing: ["words"], sourceWords: 7 });
});
