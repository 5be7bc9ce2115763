import { forEachDictionary, itemsOf, nameOf, numberOf, type PdfDocument, type PdfObject } from "./mupdf.js";

/**
 * WinAnsiEncoding's glyph names for codes 32–255 (ISO 32000-1 Annex D.2). The unused codes 127, 129,
 * 141, 143, 144 and 157 are "bullet", as the annex's footnote says viewers treat them.
 */
const winAnsiFrom32 =
  `space exclam quotedbl numbersign dollar percent ampersand quotesingle parenleft parenright
asterisk plus comma hyphen period slash zero one two three four five six seven eight nine colon semicolon less
equal greater question at A B C D E F G H I J K L M N O P Q R S T U V W X Y Z bracketleft backslash bracketright
asciicircum underscore grave a b c d e f g h i j k l m n o p q r s t u v w x y z braceleft bar braceright asciitilde
bullet Euro bullet quotesinglbase florin quotedblbase ellipsis dagger daggerdbl circumflex perthousand Scaron
guilsinglleft OE bullet Zcaron bullet bullet quoteleft quoteright quotedblleft quotedblright bullet endash emdash
tilde trademark scaron guilsinglright oe bullet zcaron Ydieresis space exclamdown cent sterling currency yen
brokenbar section dieresis copyright ordfeminine guillemotleft logicalnot hyphen registered macron degree
plusminus twosuperior threesuperior acute mu paragraph periodcentered cedilla onesuperior ordmasculine
guillemotright onequarter onehalf threequarters questiondown Agrave Aacute Acircumflex Atilde Adieresis Aring AE
Ccedilla Egrave Eacute Ecircumflex Edieresis Igrave Iacute Icircumflex Idieresis Eth Ntilde Ograve Oacute
Ocircumflex Otilde Odieresis multiply Oslash Ugrave Uacute Ucircumflex Udieresis Yacute Thorn germandbls agrave
aacute acircumflex atilde adieresis aring ae ccedilla egrave eacute ecircumflex edieresis igrave iacute icircumflex
idieresis eth ntilde ograve oacute ocircumflex otilde odieresis divide oslash ugrave uacute ucircumflex udieresis
yacute thorn ydieresis`.split(/\s+/);

export function winAnsiName(code: number): string | undefined {
  return code >= 32 ? winAnsiFrom32[code - 32] : undefined;
}

/** code → glyph name from an encoding's Differences array. */
function differencesOf(encoding: PdfObject): Map<number, string> {
  const names = new Map<number, string>();
  let code = 0;
  for (const item of itemsOf(encoding.get("Differences"))) {
    if (item.isNumber()) code = item.asNumber();
    else if (item.isName()) {
      names.set(code, item.asName());
      code += 1;
    }
  }
  return names;
}

/**
 * Ghostscript writes Type 3 fonts with an Encoding dictionary whose BaseEncoding is WinAnsiEncoding.
 * That is legal, but PDFBox Preflight reads BaseEncoding as a string there, finds none and fails the file
 * (3.2.4 "The encoding 'null' doesn't exist"); and ISO 32000-1 9.6.5 wants a Type 3 encoding spelled out
 * in Differences anyway. So each code the font covers takes its name from the base encoding into
 * Differences, where the font has a glyph program of that name, and BaseEncoding goes. Returns how many
 * fonts changed.
 */
export function spellOutType3Encodings(doc: PdfDocument): number {
  let changed = 0;
  forEachDictionary(doc, (font) => {
    if (nameOf(font.get("Subtype")) !== "Type3") return;
    const encoding = font.get("Encoding");
    if (!encoding.isDictionary() || nameOf(encoding.get("BaseEncoding")) !== "WinAnsiEncoding") return;
    const names = differencesOf(encoding);
    const glyphs = font.get("CharProcs");
    const first = numberOf(font.get("FirstChar")) ?? 0;
    const last = numberOf(font.get("LastChar")) ?? 255;
    for (let code = Math.max(0, first); code <= Math.min(255, last); code += 1) {
      const base = winAnsiName(code);
      if (!names.has(code) && base !== undefined && glyphs.isDictionary() && !glyphs.get(base).isNull()) {
        names.set(code, base);
      }
    }
    const differences = doc.newArray();
    let next = -1;
    for (const [code, name] of [...names].sort(([a], [b]) => a - b)) {
      if (code !== next) differences.push(doc.newInteger(code));
      differences.push(doc.newName(name));
      next = code + 1;
    }
    encoding.put("Differences", differences);
    encoding.delete("BaseEncoding");
    changed += 1;
  });
  return changed;
}
