import type { FontStyle } from "./types.js";

const familyHints: [RegExp, string][] = [
  [/courier|mono|consol/i, "Courier New"],
  [/times|roman|serif|minion|garamond|georgia|cambria|palatino|nimbusrom/i, "Times New Roman"],
  [/helvetica|arial|sans|verdana|tahoma|calibri|nimbussan|frutiger|univers/i, "Arial"],
  [/symbol/i, "Symbol"],
];

/** "ABCDEF+Helvetica-Bold" → "Helvetica-Bold". */
export function stripSubsetPrefix(name: string): string {
  return name.replace(/^[A-Z]{6}\+/, "");
}

export function familyOf(name: string, serif: boolean, mono: boolean): string {
  if (mono) return "Courier New";
  for (const [pattern, family] of familyHints) if (pattern.test(name)) return family;
  const base = name.split(/[-,]/)[0]?.replace(/(MT|PS)$/, "") ?? "";
  if (base.length > 1) return base;
  return serif ? "Times New Roman" : "Arial";
}

export interface FontFacts {
  name: string;
  bold: boolean;
  italic: boolean;
  mono: boolean;
  serif: boolean;
}

export function fontStyle(facts: FontFacts, size: number): FontStyle {
  const name = stripSubsetPrefix(facts.name);
  // Font flags are often missing for embedded subsets; the name tells the rest.
  const bold = facts.bold || /bold|black|heavy|semibold|demi/i.test(name);
  const italic = facts.italic || /italic|oblique/i.test(name);
  const monospace = facts.mono || /courier|mono|consol/i.test(name);
  return {
    name,
    family: familyOf(name, facts.serif, monospace),
    size: Math.round(size * 100) / 100,
    bold,
    italic,
    monospace,
  };
}
