/** Letters of the right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko and their forms). */
const strongRightToLeft = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/gu;
/** Letters of the left-to-right alphabets most often mixed into them. */
export const strongLeftToRight = /[A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]/gu;

/** Text with right-to-left letters, at least as many as left-to-right ones. */
export function isRightToLeft(text: string): boolean {
  const rtl = text.match(strongRightToLeft)?.length ?? 0;
  return rtl > 0 && rtl >= (text.match(strongLeftToRight)?.length ?? 0);
}

/** Text holding letters of both directions. */
export function hasBothDirections(text: string): boolean {
  return (text.match(strongRightToLeft)?.length ?? 0) > 0 && (text.match(strongLeftToRight)?.length ?? 0) > 0;
}
