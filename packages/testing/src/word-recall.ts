// Word recall: how many of a reference text's distinct words a converted document still has. The one
// implementation behind the pdf-office tests and the bench (bench/pdf-office), so a figure printed by the
// bench and a threshold asserted by a test mean the same thing.
//
// Words are decided as follows:
// - Unicode NFKC (ligatures ﬁ → fi, full-width forms, Arabic presentation forms), lower case. Bidi controls
//   (pdftotext wraps right-to-left runs in U+202B … U+202C), LRM/RLM, zero-width space and BOM separate
//   words; the other format characters (\p{Cf}: soft hyphen U+00AD, ZWJ, ZWNJ) are deleted. Control
//   characters (\p{Cc}; pdftotext emits e.g. U+0004 for glyphs without Unicode, and XML 1.0 cannot carry
//   them, so no DOCX/PPTX/XLSX could ever match them) are white space.
// - Words are split on white space AND on hyphens/dashes (- ‐ ‑ ‒ – — ―, U+2212 minus), so "well-known",
//   "well- known" (a line-end hyphen joined with a space) and "well known" all give {well, known}.
// - Punctuation and symbols (\p{P}, \p{S}) are trimmed from both ends of a word ("3.5" and "e.g" stay whole);
//   words left empty are dropped.
// - Han, Hiragana and Katakana characters are one word each: CJK text has no spaces, so a "word" would
//   otherwise be a whole line and any line-break difference would count as a miss.
// - Dehyphenation: a converter that joins a line-end hyphenation ("exam-" + "ple" → "example") must not be
//   penalised. Every reference word that ended with a hyphen is a candidate first fragment p; a candidate
//   word w that starts with p and is longer credits both p and the rest of w (w minus p) as found.
// Recall = |set(reference) ∩ set(candidate)| / |set(reference)|: repetitions do not count.

const HYPHENS = /[-\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]/;
const CJK = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3005\u30FC])/gu;
const BOUNDARY_CONTROLS = /[\u200B\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/g;
const EDGE = /^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu;

/** Words of a text, normalised; `fragments`, when given, gets the words that ended with a hyphen. */
function words(text: string, fragments?: Set<string>): string[] {
  const out: string[] = [];
  const normalised = text
    .normalize("NFKC")
    .toLowerCase()
    .replace(BOUNDARY_CONTROLS, " ")
    .replace(/\p{Cc}/gu, " ")
    .replace(/\p{Cf}/gu, "")
    .replace(CJK, " $1 ");
  for (const raw of normalised.split(/\s+/)) {
    if (!raw) continue;
    const parts = raw.split(HYPHENS);
    for (let i = 0; i < parts.length; i += 1) {
      const word = (parts[i] ?? "").replace(EDGE, "");
      if (!word) continue;
      out.push(word);
      // "exam-" at the end of a raw token: the hyphen split leaves an empty last part.
      if (fragments && i === parts.length - 2 && parts[i + 1] === "") fragments.add(word);
    }
  }
  return out;
}

/** The set of normalised words of a text (see the header for the rules). */
export function wordSet(text: string): Set<string> {
  return new Set(words(text));
}

export interface WordRecall {
  /** Share of the reference's distinct words found in the candidate; 1 when the reference has none. */
  recall: number;
  /** The reference's words not found, in order of first appearance. */
  missing: string[];
  /** Distinct words of the reference. */
  sourceWords: number;
}

/**
 * Word recall of `candidate` (a converted document's text) against `reference` (usually `pdftotext
 * -layout` of the source PDF). Line-end hyphenation fragments count as found when the candidate has the
 * joined word (see the header).
 */
export function wordRecall(reference: string, candidate: string): WordRecall {
  const fragments = new Set<string>();
  const expected = new Set(words(reference, fragments));
  const found = wordSet(candidate);
  if (fragments.size > 0) {
    for (const word of [...found]) {
      for (let end = 1; end < word.length; end += 1) {
        const head = word.slice(0, end);
        if (!fragments.has(head)) continue;
        found.add(head);
        found.add(word.slice(end));
      }
    }
  }
  const missing = [...expected].filter((word) => !found.has(word));
  return {
    recall: expected.size === 0 ? 1 : (expected.size - missing.length) / expected.size,
    missing,
    sourceWords: expected.size,
  };
}
