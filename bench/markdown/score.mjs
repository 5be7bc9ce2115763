// Scorers shared by the PDF to Markdown benches (tables.mjs, headings.mjs, icdar.mjs), and the Markdown
// report tables they print (running the engine is engine.mjs's).
//
// - Cell-content F1: packages/layout/test/table-score.ts's scoreCells (multiset of normalised non-empty
//   cell texts), re-exported; `matchTables` pairs truth and output tables one to one, greedily by F1.
// - TEDS (Zhong et al. 2020, "Image-based table recognition", as PubTabNet computes it): the tree edit
//   distance (Zhang–Shasha) between the tables' HTML trees table → tr → td, every td carrying its rowspan,
//   colspan and content; insert and delete cost 1, renaming a td into a td costs 1 when their spans differ,
//   else the normalised Levenshtein distance of their contents (0 when structure only is scored); any other
//   rename costs 1 unless the tags are equal. TEDS = 1 − TED / max(nodes). A grid is completed with empty
//   1×1 cells where no cell covers a position, on both sides, so a writer that omits empty cells is not
//   charged for them. Cell contents are compared as normaliseCell makes them (NFKC, lower case, no
//   whitespace), as the F1 does, so both measures see the same text.
// - LaTeX tabular → grid (parseTabular): rows at `\\`, cells at `&` (both at brace and environment depth 0),
//   `\multicolumn{n}{spec}{x}`, `\multirow{n}[..]{width}{x}` (negative n: the text sits in the span's last
//   row), rules and colours dropped, a multirow's placeholder entries below it dropped, rows with no text and
//   no span dropped; cell text by latexToText (markup commands dropped, their arguments kept, symbols as
//   Unicode, math's `^ _ $` dropped and its `-` as U+2212, as the corpus's CSVs write them).
// - Text-block search (textBlockRecall): a block is found when its normalised text (normaliseForSearch:
//   NFKC, lower case, curly quotes and dashes folded, LaTeX and Markdown markup and every other character
//   that is not a letter or a digit turned into a space, spaces collapsed) is a substring of the
//   document's; in order = found at or after the end of the previous block found in order.
// - Headings against an outline (matchHeadings): see titlesMatch and levelAgreement below.
//
// Self-test: node --test bench/markdown/score.test.mjs
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { normaliseCell, scoreCells } from "../../packages/layout/test/table-score.ts";

export { normaliseCell, scoreCells };

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const corpusDir = join(repoRoot, "..", "shared", "corpus");

// ---------------------------------------------------------------------------------------------------------
// LaTeX

const SYMBOLS = {
  times: "×",
  pm: "±",
  mp: "∓",
  div: "÷",
  cdot: "·",
  centerdot: "·",
  ast: "∗",
  star: "⋆",
  circ: "◦",
  bullet: "•",
  bigcirc: "◯",
  odot: "⊙",
  oplus: "⊕",
  otimes: "⊗",
  ominus: "⊖",
  dotplus: "∔",
  ltimes: "⋉",
  rtimes: "⋊",
  leftthreetimes: "⋋",
  rightthreetimes: "⋌",
  Cap: "⋒",
  doublecap: "⋒",
  Cup: "⋓",
  doublecup: "⋓",
  barwedge: "⊼",
  doublebarwedge: "⩞",
  curlywedge: "⋏",
  curlyvee: "⋎",
  veebar: "⊻",
  boxminus: "⊟",
  boxplus: "⊞",
  boxtimes: "⊠",
  boxdot: "⊡",
  circleddash: "⊖",
  circledast: "⊛",
  circledcirc: "⊚",
  divideontimes: "⋇",
  intercal: "⊺",
  uparrow: "↑",
  downarrow: "↓",
  Uparrow: "⇑",
  Downarrow: "⇓",
  rightarrow: "→",
  to: "→",
  leftarrow: "←",
  gets: "←",
  leftrightarrow: "↔",
  Rightarrow: "⇒",
  Leftarrow: "⇐",
  Leftrightarrow: "⇔",
  mapsto: "↦",
  checkmark: "✓",
  cmark: "✓",
  xmark: "✗",
  infty: "∞",
  sim: "∼",
  approx: "≈",
  simeq: "≃",
  cong: "≅",
  equiv: "≡",
  neq: "≠",
  ne: "≠",
  leq: "≤",
  le: "≤",
  geq: "≥",
  ge: "≥",
  ll: "≪",
  gg: "≫",
  in: "∈",
  notin: "∉",
  ni: "∋",
  subset: "⊂",
  subseteq: "⊆",
  supset: "⊃",
  cup: "∪",
  cap: "∩",
  setminus: "∖",
  smallsetminus: "∖",
  emptyset: "∅",
  forall: "∀",
  exists: "∃",
  partial: "∂",
  nabla: "∇",
  sum: "∑",
  prod: "∏",
  int: "∫",
  propto: "∝",
  wedge: "∧",
  vee: "∨",
  neg: "¬",
  lnot: "¬",
  perp: "⊥",
  parallel: "∥",
  mid: "∣",
  vert: "|",
  lvert: "|",
  rvert: "|",
  Vert: "‖",
  langle: "⟨",
  rangle: "⟩",
  backslash: "\\",
  dag: "†",
  dagger: "†",
  ddag: "‡",
  ddagger: "‡",
  S: "§",
  P: "¶",
  copyright: "©",
  pounds: "£",
  euro: "€",
  degree: "°",
  textdegree: "°",
  prime: "′",
  over: "/",
  ell: "ℓ",
  hbar: "ℏ",
  ldots: "…",
  dots: "…",
  cdots: "⋯",
  vdots: "⋮",
  textbar: "|",
  textbackslash: "\\",
  textasciitilde: "~",
  textless: "<",
  textgreater: ">",
  textendash: "–",
  textemdash: "—",
  textbullet: "•",
  textperiodcentered: "·",
  textregistered: "®",
  texttrademark: "™",
  textmu: "µ",
  textpm: "±",
  texttimes: "×",
  textdagger: "†",
  textdaggerdbl: "‡",
  textsection: "§",
  textparagraph: "¶",
  textcopyright: "©",
  AA: "Å",
  aa: "å",
  o: "ø",
  O: "Ø",
  ss: "ß",
  ae: "æ",
  AE: "Æ",
  oe: "œ",
  OE: "Œ",
  i: "ı",
  alpha: "α",
  beta: "β",
  gamma: "γ",
  delta: "δ",
  epsilon: "ϵ",
  varepsilon: "ε",
  zeta: "ζ",
  eta: "η",
  theta: "θ",
  vartheta: "ϑ",
  iota: "ι",
  kappa: "κ",
  lambda: "λ",
  mu: "μ",
  nu: "ν",
  xi: "ξ",
  pi: "π",
  varpi: "ϖ",
  rho: "ρ",
  varrho: "ϱ",
  sigma: "σ",
  varsigma: "ς",
  tau: "τ",
  upsilon: "υ",
  phi: "ϕ",
  varphi: "φ",
  chi: "χ",
  psi: "ψ",
  omega: "ω",
  Gamma: "Γ",
  Delta: "Δ",
  Theta: "Θ",
  Lambda: "Λ",
  Xi: "Ξ",
  Pi: "Π",
  Sigma: "Σ",
  Upsilon: "Υ",
  Phi: "Φ",
  Psi: "Ψ",
  Omega: "Ω",
  quad: " ",
  qquad: " ",
  newline: " ",
  linebreak: " ",
  tabularnewline: " ",
  log: "log",
  ln: "ln",
  exp: "exp",
  sin: "sin",
  cos: "cos",
  tan: "tan",
  max: "max",
  min: "min",
  arg: "arg",
  lim: "lim",
  sup: "sup",
  inf: "inf",
  det: "det",
  Pr: "Pr",
};

// Text accents: \'e, \"{o}, \c{c}… as the letter with a combining mark.
const ACCENTS = {
  "'": "\u0301",
  "`": "\u0300",
  "^": "\u0302",
  '"': "\u0308",
  "~": "\u0303",
  "=": "\u0304",
  ".": "\u0307",
  c: "\u0327",
  v: "\u030c",
  u: "\u0306",
  H: "\u030b",
  r: "\u030a",
  k: "\u0328",
};

/**
 * Arguments a command takes that are not text, dropped with it: o = optional [..], p = optional (..),
 * * = optional star, 1 = a mandatory group (or single token). The text argument that some of these
 * commands take last (\textcolor{red}{text}, \multirow{2}{*}{text}) is not listed: it stays as text.
 */
const ARGUMENTS = {
  // rules, spacing, colour, layout: nothing of theirs is text
  hline: "",
  toprule: "o",
  midrule: "o",
  bottomrule: "o",
  cline: "1",
  cmidrule: "op1",
  cdashline: "1",
  Xhline: "1",
  hhline: "1",
  specialrule: "111",
  addlinespace: "o",
  morecmidrules: "",
  noalign: "1",
  arrayrulecolor: "o1",
  cellcolor: "o1",
  rowcolor: "o1",
  columncolor: "o1",
  color: "o1",
  hspace: "*1",
  vspace: "*1",
  hphantom: "1",
  vphantom: "1",
  phantom: "1",
  rule: "o11",
  label: "1",
  ref: "1",
  eqref: "1",
  cite: "o1",
  citep: "oo1",
  citet: "oo1",
  footnote: "o1",
  footnotemark: "o",
  footnotetext: "o1",
  includegraphics: "o1",
  setlength: "11",
  renewcommand: "11",
  extracolsep: "1",
  fontsize: "11",
  // commands whose last argument is the text: their other arguments are dropped
  textcolor: "o1",
  colorbox: "o1",
  fcolorbox: "o11",
  raisebox: "1oo",
  resizebox: "11",
  scalebox: "1o",
  rotatebox: "o1",
  parbox: "ooo1",
  makebox: "oo",
  multicolumn: "11",
  multirow: "o1o1o",
  multirowcell: "1o",
  makecell: "o",
  thead: "o",
  shortstack: "o",
  href: "1",
  adjustbox: "1",
};

/** The index just past a balanced `open … close` starting at s[i] === open (escaped braces skipped). */
function balancedEnd(s, i, open, close) {
  let depth = 0;
  for (let k = i; k < s.length; k++) {
    if (s[k] === "\\") {
      k++;
      continue;
    }
    if (s[k] === open) depth++;
    else if (s[k] === close && --depth === 0) return k + 1;
  }
  return s.length;
}

const skipSpaces = (s, i) => {
  while (i < s.length && /\s/.test(s[i])) i++;
  return i;
};

/** A mandatory argument at s[i..]: a {group}'s content, a \command, or one character. */
function readArgument(s, i) {
  const at = skipSpaces(s, i);
  if (s[at] === "{") {
    const end = balancedEnd(s, at, "{", "}");
    return { content: s.slice(at + 1, end - 1), end };
  }
  if (s[at] === "\\") {
    const word = /^\\([a-zA-Z]+|.)/.exec(s.slice(at));
    return { content: word[0], end: at + word[0].length };
  }
  return { content: s[at] ?? "", end: Math.min(s.length, at + 1) };
}

/** Consumes the arguments a spec (ARGUMENTS' letters) names, from s[i]; returns the index after them. */
function skipArguments(s, i, spec) {
  for (const kind of spec) {
    if (kind === "1") i = readArgument(s, i).end;
    else {
      const at = skipSpaces(s, i);
      const [open, close] = kind === "o" ? ["[", "]"] : kind === "p" ? ["(", ")"] : ["*", ""];
      if (s[at] !== open) continue;
      i = kind === "*" ? at + 1 : balancedEnd(s, at, open, close);
    }
  }
  return i;
}

/** Drops LaTeX comments: `%` to the end of its line, unless escaped (`\%`). */
export function stripComments(latex) {
  return latex.replace(/(^|[^\\])((?:\\\\)*)%.*$/gm, "$1$2");
}

/**
 * The plain text that a piece of LaTeX prints, as the corpus's CSVs write it: formatting commands dropped
 * with their non-text arguments, symbols as Unicode, `$…$` dropped around math with its `^`/`_` markers,
 * `-` in math as U+2212 and `*` as U+2217, `\circ` as ◦, quotes curled, `--`/`---` in text as en and em dashes, `~` a space, `\\` and `&` (inside a
 * nested tabular or \makecell) a space, braces dropped, spaces collapsed.
 */
export function latexToText(latex) {
  const s = stripComments(latex);
  let out = "";
  let math = false;
  let i = 0;
  while (i < s.length) {
    const ch = s[i];
    if (ch === "\\") {
      const next = s[i + 1];
      if (next === undefined) break;
      if (!/[a-zA-Z]/.test(next)) {
        // control symbols
        i += 2;
        if (next === "\\") {
          out += " ";
          i = skipArguments(s, i, "*o");
        } else if (next === "(" || next === "[") math = true;
        else if (next === ")" || next === "]") math = false;
        else if (ACCENTS[next] && !math) {
          const { content, end } = readArgument(s, i);
          out += `${latexToText(content)}${ACCENTS[next]}`.normalize("NFC");
          i = end;
        } else if (",;:! ".includes(next)) out += " ";
        else if (next === "/" || next === "-") out += "";
        else if (next === "|") out += math ? "‖" : "|";
        else out += next; // \% \& \_ \# \$ \{ \}
        continue;
      }
      const name = /^[a-zA-Z]+/.exec(s.slice(i + 1))[0];
      i += 1 + name.length;
      if (name === "verb") {
        const star = s[i] === "*" ? 1 : 0;
        const delimiter = s[i + star];
        const end = s.indexOf(delimiter, i + star + 1);
        out += s.slice(i + star + 1, end < 0 ? s.length : end);
        i = end < 0 ? s.length : end + 1;
      } else if (name === "begin" || name === "end") {
        const { content: environment, end } = readArgument(s, i);
        i = end;
        if (name === "begin" && /^(tabular\*?|tabularx|tabulary|array)$/.test(environment)) {
          i = skipArguments(s, i, environment === "tabular" || environment === "array" ? "o1" : "o11");
        }
        if (/^(equation|align|math|displaymath)\*?$/.test(environment)) math = name === "begin";
        out += " ";
      } else if (name === "frac" || name === "dfrac" || name === "tfrac") {
        const a = readArgument(s, i);
        const b = readArgument(s, a.end);
        out += `${latexToText(a.content)}/${latexToText(b.content)}`;
        i = b.end;
      } else if (name === "sqrt") {
        i = skipArguments(s, i, "o");
        out += "√";
      } else if (name === "left" || name === "right" || /^[bB]ig+[lrm]?$/.test(name)) {
        if (s[i] === ".") i++;
      } else if (Object.hasOwn(SYMBOLS, name)) {
        out += SYMBOLS[name];
        // a control word eats the spaces after it
        if (/^[a-zA-Z]/.test(SYMBOLS[name])) out += " ";
        while (s[i] === " ") i++;
      } else if (Object.hasOwn(ARGUMENTS, name)) {
        i = skipArguments(s, i, ARGUMENTS[name]);
      } else {
        // unknown commands (\textbf, \mathrm, \emph, \small, \bf…): the name goes, an argument stays as
        // text; an optional argument right before a group (\makecell[c]{…}) goes too
        if (s[i] === "[") {
          const end = balancedEnd(s, i, "[", "]");
          if (s[skipSpaces(s, end)] === "{") i = end;
        }
        while (s[i] === " ") i++;
      }
      continue;
    }
    i++;
    if (ch === "$") math = !math;
    else if (ch === "{" || ch === "}") continue;
    else if (ch === "&") out += " ";
    else if (ch === "~") out += " ";
    else if (math && (ch === "^" || ch === "_")) continue;
    else if (math && ch === "-") out += "−";
    else if (math && ch === "'") out += "′";
    else if (math && ch === "*") out += "∗";
    else if (!math && ch === "-" && s[i] === "-") {
      if (s[i + 1] === "-") {
        out += "—";
        i += 2;
      } else {
        out += "–";
        i += 1;
      }
    } else if (!math && ch === "`" && s[i] === "`") {
      out += "“";
      i++;
    } else if (!math && ch === "'" && s[i] === "'") {
      out += "”";
      i++;
    } else if (!math && ch === "'") out += "’";
    else if (!math && ch === "`") out += "‘";
    else out += ch;
  }
  return out.replace(/\s+/g, " ").trim();
}

const TABULAR_BEGIN = /\\begin\s*\{(tabular\*?|tabularx|tabulary|longtable|array)\}/;

/**
 * Splits the first tabular environment of `latex` into rows of raw cell strings: rows end at `\\` (with its
 * optional `[len]`) or `\tabularnewline`, cells at `&`, both only outside braces and nested environments;
 * `\verb` is read as it is; comments are dropped. Returns null if there is no tabular.
 */
export function splitTabular(latex) {
  const s = stripComments(latex);
  const begin = TABULAR_BEGIN.exec(s);
  if (!begin) return null;
  const environment = begin[1];
  let i = begin.index + begin[0].length;
  i = skipArguments(s, i, environment === "tabular" || environment === "array" ? "o1" : "o11");
  const rows = [];
  let row = [];
  let cell = "";
  let braces = 0;
  let environments = 0;
  const endRow = () => {
    row.push(cell);
    rows.push(row);
    row = [];
    cell = "";
  };
  while (i < s.length) {
    const ch = s[i];
    const top = braces === 0 && environments === 0;
    if (ch === "\\") {
      const next = s[i + 1];
      if (next === "\\" && top) {
        endRow();
        i = skipArguments(s, i + 2, "*o");
        continue;
      }
      const word = /^[a-zA-Z]+/.exec(s.slice(i + 1))?.[0];
      if (!word) {
        cell += s.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (word === "verb") {
        const from = i + 5 + (s[i + 5] === "*" ? 1 : 0);
        const end = s.indexOf(s[from], from + 1);
        const stop = end < 0 ? s.length : end + 1;
        cell += s.slice(i, stop);
        i = stop;
        continue;
      }
      if (word === "tabularnewline" && top) {
        endRow();
        i += 1 + word.length;
        continue;
      }
      if (word === "begin") environments++;
      if (word === "end") {
        if (environments === 0) {
          const { content } = readArgument(s, i + 4);
          if (content === environment) break;
        } else environments--;
      }
      cell += s.slice(i, i + 1 + word.length);
      i += 1 + word.length;
      continue;
    }
    if (ch === "{") braces++;
    else if (ch === "}") braces = Math.max(0, braces - 1);
    if (ch === "&" && top) {
      row.push(cell);
      cell = "";
    } else cell += ch;
    i++;
  }
  if (cell.trim() !== "" || row.length) endRow();
  return rows;
}

// Commands that may stand before a cell's \multicolumn or \multirow without being part of its text.
const LEADING =
  /^\s*\\(hline|toprule|midrule|bottomrule|cline|cmidrule|cdashline|Xhline|hhline|specialrule|addlinespace|morecmidrules|noalign|arrayrulecolor|cellcolor|rowcolor|columncolor|color|centering|raggedright|raggedleft|small|footnotesize|scriptsize|tiny|normalsize|large|bf|bfseries|it|itshape|rm|em)(?![a-zA-Z])/;

/** A raw tabular entry: its spans (rowSpan negative for \multirow{-n}) and its text. */
export function parseEntry(raw) {
  let s = raw;
  let columnSpan = 1;
  let rowSpan = 1;
  for (;;) {
    const lead = LEADING.exec(s);
    if (lead) {
      const name = lead[1];
      s = s.slice(skipArguments(s, lead[0].length, ARGUMENTS[name] ?? ""));
      continue;
    }
    const span = /^\s*\\(multicolumn|multirow|multirowcell)(?![a-zA-Z])/.exec(s);
    if (!span) break;
    // \multirow[vpos]{n}…: the optional vertical position comes before the count
    const count = readArgument(s, skipArguments(s, span[0].length, span[1] === "multirow" ? "o" : ""));
    const n = Number.parseInt(count.content, 10) || 1;
    if (span[1] === "multicolumn") {
      const spec = readArgument(s, count.end);
      const text = readArgument(s, spec.end);
      columnSpan = Math.max(1, n);
      s = text.content + s.slice(text.end);
    } else {
      let at = skipArguments(s, count.end, span[1] === "multirow" ? "o1o" : "o");
      const text = readArgument(s, at);
      at = text.end;
      rowSpan = n;
      s = text.content + s.slice(at);
    }
  }
  return { rowSpan, columnSpan, text: latexToText(s) };
}

/**
 * A LaTeX tabular as a grid: `{ rows, columns, cells: [{ row, column, rowSpan, columnSpan, text }] }`.
 * An empty entry that falls on a position a \multirow above covers is its placeholder and is dropped; one with
 * text there cuts the \multirow's span short (a span that overruns its rows, as the corpus's CSVs read it); a
 * \multirow{-n} takes the place of the empty placeholders above it.
 * Row spans are cut at the last row the tabular writes (a \multirow{8} over 7 rows); then rows without text
 * and without any spanning cell crossing them (spacer rows, rule-only lines) are dropped.
 */
export function parseTabular(latex) {
  const rawRows = splitTabular(latex);
  if (!rawRows) return null;
  const cells = [];
  const cover = new Map(); // "row,column" → the cell covering that position
  rawRows.forEach((entries, row) => {
    let column = 0;
    for (const raw of entries) {
      const entry = parseEntry(raw);
      const covering = cover.get(`${row},${column}`);
      if (covering && !entry.text) {
        column += entry.columnSpan;
        continue;
      }
      if (covering) {
        // text where a \multirow above reaches: the span overran the rows meant for it; cut it here
        for (let r = row; r < covering.row + covering.rowSpan; r++)
          for (let c = covering.column; c < covering.column + covering.columnSpan; c++)
            cover.delete(`${r},${c}`);
        covering.rowSpan = row - covering.row;
      }
      let top = row;
      let rowSpan = entry.rowSpan;
      if (rowSpan < 0) {
        rowSpan = -rowSpan;
        // the empty placeholders above, in the same columns, make way
        for (let k = 1; k < rowSpan; k++) {
          const above = cells.findIndex(
            (c) => c.row === row - k && c.column === column && c.rowSpan === 1 && c.text === "",
          );
          if (above < 0) break;
          for (let c = column; c < column + cells[above].columnSpan; c++) cover.delete(`${row - k},${c}`);
          cells.splice(above, 1);
          top = row - k;
        }
        rowSpan = row - top + 1;
      }
      const cell = { row: top, column, rowSpan, columnSpan: entry.columnSpan, text: entry.text };
      cells.push(cell);
      for (let r = top; r < top + rowSpan; r++)
        for (let c = column; c < column + entry.columnSpan; c++) cover.set(`${r},${c}`, cell);
      column += entry.columnSpan;
    }
  });
  // the last row written: more than one entry, or one with text (not the rest after the last \\)
  const written = rawRows.map(
    (entries) => entries.length > 1 || entries.some((e) => parseEntry(e).text !== ""),
  );
  const last = written.lastIndexOf(true);
  for (const cell of cells) cell.rowSpan = Math.max(1, Math.min(cell.rowSpan, last - cell.row + 1));
  return dropEmptyRows(cells);
}

/** Drops rows in which no cell has text and no cell spans more than one row; renumbers the rest. */
export function dropEmptyRows(cells) {
  const rows = Math.max(0, ...cells.map((c) => c.row + c.rowSpan));
  const keep = [];
  for (let r = 0; r < rows; r++) {
    const touching = cells.filter((c) => c.row <= r && r < c.row + c.rowSpan);
    keep.push(touching.some((c) => c.text !== "" || c.rowSpan > 1));
  }
  const newIndex = [];
  let next = 0;
  for (let r = 0; r < rows; r++) newIndex.push(keep[r] ? next++ : -1);
  const kept = cells.filter((c) => keep[c.row]).map((c) => ({ ...c, row: newIndex[c.row] }));
  return { rows: next, columns: Math.max(0, ...kept.map((c) => c.column + c.columnSpan)), cells: kept };
}

/**
 * The CSV's texts put on a parsed LaTeX grid (the CSV holds a spanning cell's text in the first cell of its
 * span), when the CSV without its empty rows has the grid's shape; else the grid as it is. Returns
 * `{ grid, fromCsv }`.
 */
export function withCsvTexts(grid, csvRows) {
  const rows = csvRows.filter((r) => r.some((t) => t.trim() !== ""));
  const columns = Math.max(0, ...rows.map((r) => r.length));
  if (rows.length !== grid.rows || columns !== grid.columns) return { grid, fromCsv: false };
  const cells = grid.cells.map((c) => ({ ...c, text: (rows[c.row][c.column] ?? "").trim() }));
  return { grid: { ...grid, cells }, fromCsv: true };
}

// ---------------------------------------------------------------------------------------------------------
// Tables as grids; TEDS

/** A grid from cells, `{ rows, columns, cells }`, with empty 1×1 cells where no cell covers a position. */
export function completeGrid(input) {
  const cells = input.map((c) => ({ ...c, rowSpan: c.rowSpan || 1, columnSpan: c.columnSpan || 1 }));
  const rows = Math.max(0, ...cells.map((c) => c.row + c.rowSpan));
  const columns = Math.max(0, ...cells.map((c) => c.column + c.columnSpan));
  const taken = new Set();
  for (const c of cells)
    for (let r = c.row; r < c.row + c.rowSpan; r++)
      for (let k = c.column; k < c.column + c.columnSpan; k++) taken.add(`${r},${k}`);
  const all = cells.map((c) => ({ ...c, text: c.text ?? "" }));
  for (let r = 0; r < rows; r++)
    for (let k = 0; k < columns; k++)
      if (!taken.has(`${r},${k}`)) all.push({ row: r, column: k, rowSpan: 1, columnSpan: 1, text: "" });
  all.sort((a, b) => a.row - b.row || a.column - b.column);
  return { rows, columns, cells: all };
}

/** The texts of a table's cells, each cell once (a merged area is one cell). */
export const cellTexts = (table) => table.cells.map((c) => c.text ?? "");

/**
 * A table's HTML tree for TEDS: table → tr (one per row) → td (per cell starting in that row, left to
 * right), each td with its spans and its content as the characters of normaliseCell(text).
 */
export function tableTree(cells) {
  const grid = completeGrid(cells);
  const rows = Array.from({ length: grid.rows }, () => ({ tag: "tr", children: [] }));
  for (const c of grid.cells)
    rows[c.row].children.push({
      tag: "td",
      rowSpan: c.rowSpan,
      columnSpan: c.columnSpan,
      content: [...normaliseCell(c.text)],
      children: [],
    });
  return { tag: "table", children: rows };
}

/** Levenshtein distance of two arrays (or strings). */
export function levenshtein(a, b) {
  if (a.length < b.length) [a, b] = [b, a];
  let previous = Array.from({ length: b.length + 1 }, (_, k) => k);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let k = 1; k <= b.length; k++)
      current[k] = Math.min(
        previous[k] + 1,
        current[k - 1] + 1,
        previous[k - 1] + (a[i - 1] === b[k - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length];
}

/** Nodes in postorder, each one's leftmost leaf descendant, and the keyroots (Zhang & Shasha 1989). */
function indexTree(root) {
  const nodes = [];
  const leftmost = [];
  const visit = (node) => {
    let first = -1;
    for (const child of node.children) {
      const l = visit(child);
      if (first < 0) first = l;
    }
    nodes.push(node);
    leftmost.push(first < 0 ? nodes.length - 1 : first);
    return leftmost[nodes.length - 1];
  };
  visit(root);
  const last = new Map();
  for (const [index, l] of leftmost.entries()) last.set(l, index);
  const keyroots = [...last.values()].sort((x, y) => x - y);
  return { nodes, leftmost, keyroots };
}

/**
 * Tree edit distance (Zhang–Shasha) between two ordered trees `{ children: [...] }`; inserting or deleting a
 * node costs 1, renaming a into b costs rename(a, b).
 */
export function treeEditDistance(a, b, rename) {
  const A = indexTree(a);
  const B = indexTree(b);
  const n = A.nodes.length;
  const m = B.nodes.length;
  const tree = Array.from({ length: n }, () => new Float64Array(m));
  const forest = Array.from({ length: n + 1 }, () => new Float64Array(m + 1));
  for (const i of A.keyroots) {
    const li = A.leftmost[i];
    for (const j of B.keyroots) {
      const lj = B.leftmost[j];
      forest[0][0] = 0;
      for (let x = li; x <= i; x++) forest[x - li + 1][0] = forest[x - li][0] + 1;
      for (let y = lj; y <= j; y++) forest[0][y - lj + 1] = forest[0][y - lj] + 1;
      for (let x = li; x <= i; x++) {
        const X = x - li + 1;
        const lx = A.leftmost[x];
        for (let y = lj; y <= j; y++) {
          const Y = y - lj + 1;
          const ly = B.leftmost[y];
          const drop = forest[X - 1][Y] + 1;
          const add = forest[X][Y - 1] + 1;
          if (lx === li && ly === lj) {
            const value = Math.min(drop, add, forest[X - 1][Y - 1] + rename(A.nodes[x], B.nodes[y]));
            forest[X][Y] = value;
            tree[x][y] = value;
          } else {
            forest[X][Y] = Math.min(drop, add, forest[lx - li][ly - lj] + tree[x][y]);
          }
        }
      }
    }
  }
  return tree[n - 1][m - 1];
}

function countNodes(node) {
  return 1 + node.children.reduce((sum, child) => sum + countNodes(child), 0);
}

/**
 * TEDS of two tables given as cells ({ row, column, rowSpan, columnSpan, text }): 1 − TED / max(nodes),
 * PubTabNet's costs (see the header); `structureOnly` ignores the cells' text.
 */
export function teds(cellsA, cellsB, { structureOnly = false } = {}) {
  const a = tableTree(cellsA);
  const b = tableTree(cellsB);
  const rename = (x, y) => {
    if (x.tag !== y.tag) return 1;
    if (x.tag !== "td") return 0;
    if (x.rowSpan !== y.rowSpan || x.columnSpan !== y.columnSpan) return 1;
    if (structureOnly) return 0;
    const longest = Math.max(x.content.length, y.content.length);
    return longest ? levenshtein(x.content, y.content) / longest : 0;
  };
  const size = Math.max(countNodes(a), countNodes(b));
  return 1 - treeEditDistance(a, b, rename) / size;
}

/**
 * Pairs truth tables with output tables one to one, greedily: the pair with the highest score first, and so
 * on while scores are positive. Returns, per truth index, the output index matched or -1.
 */
export function matchTables(truths, outputs, score) {
  const pairs = [];
  truths.forEach((t, i) => {
    outputs.forEach((o, k) => {
      const value = score(t, o);
      if (value > 0) pairs.push({ i, k, value });
    });
  });
  pairs.sort((x, y) => y.value - x.value || x.i - y.i || x.k - y.k);
  const match = truths.map(() => -1);
  const used = new Set();
  for (const { i, k } of pairs) {
    if (match[i] >= 0 || used.has(k)) continue;
    match[i] = k;
    used.add(k);
  }
  return match;
}

// ---------------------------------------------------------------------------------------------------------
// Text

const FOLDS = [
  [/[‘’‚‛′`´]/g, "'"],
  [/[“”„‟″]/g, '"'],
  [/[‐‑‒–—―−]/g, "-"],
];

/**
 * Text for searching: NFKC, lower case, quotes and dashes folded, LaTeX commands and math markers and
 * Markdown/HTML markup (anything not a letter or digit) turned into spaces, spaces collapsed.
 */
export function normaliseForSearch(text) {
  let t = text.normalize("NFKC").toLowerCase();
  for (const [pattern, replacement] of FOLDS) t = t.replace(pattern, replacement);
  return t
    .replace(/\\[a-z]+/g, " ")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/**
 * Looks for each block (in order) in a document's text, both normalised by normaliseForSearch. Returns
 * `{ found, inOrder, total, blocks: [{ text, found, inOrder }] }`: found = anywhere in the document;
 * inOrder = at or after the end of the last block found in order (a block found out of order does not move
 * that point). Blocks that normalise to nothing are not counted.
 */
export function textBlockRecall(blocks, documentText) {
  const haystack = ` ${normaliseForSearch(documentText)} `;
  let cursor = 0;
  const results = [];
  for (const block of blocks) {
    const needle = normaliseForSearch(block);
    if (!needle) continue;
    // whole words: the needle is searched between spaces
    const key = ` ${needle} `;
    const at = haystack.indexOf(key, cursor);
    const inOrder = at >= 0;
    if (inOrder) cursor = at + key.length - 1;
    results.push({ text: block, found: inOrder || haystack.includes(key), inOrder });
  }
  return {
    total: results.length,
    found: results.filter((r) => r.found).length,
    inOrder: results.filter((r) => r.inOrder).length,
    blocks: results,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Headings against an outline

/** A title for matching: NFKC, lower case, quotes and dashes folded, spaces collapsed, trailing dots gone. */
export function normaliseTitle(title) {
  let t = title.normalize("NFKC").toLowerCase();
  for (const [pattern, replacement] of FOLDS) t = t.replace(pattern, replacement);
  return t
    .replace(/\s+/g, " ")
    .replace(/[\s.:]+$/, "")
    .trim();
}

// "1", "1.2", "1.2.3.", "IV.", "A.", "(a)", "Chapter 3", "Section 2.1:", "Appendix B –", "§ 4", "Capítulo 01 -"
const NUMBERING =
  /^(?:(?:chapter|section|part|appendix|annex|capítulo|capitulo|kapitel|abschnitt|chapitre|teil|anhang)\s+)?(?:§\s*)?(?:\(?(?:\d+(?:\.\d+)*|[ivxlcdm]+|[a-z])\)?[.:)]?)(?:\s*[-:]\s*|\s+)/;

/** A normalised title without its leading numbering ("1.2 ", "chapter 3 - ", "iv. ", "a) "), if any. */
export function stripNumbering(title) {
  const stripped = title.replace(NUMBERING, "");
  return stripped === "" ? title : stripped;
}

/**
 * Whether an outline title and a heading's text name the same heading: after normaliseTitle, equal, or one
 * containing the other with the shorter at least 70 % of the longer's length; failing that, the same test
 * with leading numbering stripped from both ("1.2 Results" matches "Results", "Chapter 3 Methods" matches
 * "3 Methods" and "Methods"). Returns "exact", "contained" or null.
 */
export function titlesMatch(outlineTitle, headingText) {
  const test = (a, b) => {
    if (!a || !b) return null;
    if (a === b) return "exact";
    const [short, long] = a.length <= b.length ? [a, b] : [b, a];
    return long.includes(short) && short.length >= 0.7 * long.length ? "contained" : null;
  };
  const a = normaliseTitle(outlineTitle);
  const b = normaliseTitle(headingText);
  return test(a, b) ?? test(stripNumbering(a), stripNumbering(b));
}

/**
 * The entries of a MuPDF outline (loadOutline(): [{ title, page?, down? }]) that point into the document's
 * pages, depth first in order: `{ title, page (0-based), depth (0 = top) }`. Entries without a title or a
 * page in 0..pageCount−1 are left out (their children are still visited, one level deeper).
 */
export function flattenOutline(outline, pageCount) {
  const out = [];
  const visit = (items, depth) => {
    for (const item of items ?? []) {
      const title = (item.title ?? "").trim();
      if (title && Number.isInteger(item.page) && item.page >= 0 && item.page < pageCount)
        out.push({ title, page: item.page, depth });
      visit(item.down, depth + 1);
    }
  };
  visit(outline, 0);
  return out;
}

/**
 * Matches outline entries ({ title, page, depth }) with headings ({ text, page (1-based), level }), one to
 * one, in outline order: each entry takes the unmatched heading that matches it (titlesMatch) best, an exact
 * match before a contained one, then the heading nearest its page. Returns
 * `{ pairs: [{ entry, heading, kind }], recall, precision }`: recall = entries matched / entries;
 * precision = headings matched / headings (a heading that the outline does not list counts against it).
 */
export function matchHeadings(entries, headings) {
  const used = new Set();
  const pairs = [];
  for (const entry of entries) {
    let best = null;
    headings.forEach((heading, index) => {
      if (used.has(index)) return;
      const kind = titlesMatch(entry.title, heading.text);
      if (!kind) return;
      const distance = Math.abs(heading.page - 1 - entry.page);
      const rank = (kind === "exact" ? 0 : 1e6) + distance;
      if (!best || rank < best.rank) best = { rank, index, kind };
    });
    if (best) {
      used.add(best.index);
      pairs.push({ entry, heading: headings[best.index], kind: best.kind });
    }
  }
  return {
    pairs,
    recall: entries.length ? pairs.length / entries.length : 0,
    precision: headings.length ? pairs.length / headings.length : 0,
  };
}

/**
 * How well our levels agree with the outline's depths over matched pairs: `relative` = the share of pairs
 * whose level − the least matched level equals depth − the least matched depth; `pairwise` = over every two
 * matched pairs, the share whose order agrees (depth a < depth b ⇔ level a < level b, equal ⇔ equal),
 * Kendall-style, null with fewer than two pairs.
 */
export function levelAgreement(pairs) {
  if (!pairs.length) return { relative: null, pairwise: null };
  const minDepth = Math.min(...pairs.map((p) => p.entry.depth));
  const minLevel = Math.min(...pairs.map((p) => p.heading.level));
  const relative =
    pairs.filter((p) => p.heading.level - minLevel === p.entry.depth - minDepth).length / pairs.length;
  let agree = 0;
  let total = 0;
  for (let x = 0; x < pairs.length; x++)
    for (let y = x + 1; y < pairs.length; y++) {
      total++;
      const depth = Math.sign(pairs[x].entry.depth - pairs[y].entry.depth);
      const level = Math.sign(pairs[x].heading.level - pairs[y].heading.level);
      if (depth === level) agree++;
    }
  return { relative, pairwise: total ? agree / total : null };
}

// ---------------------------------------------------------------------------------------------------------
// Reports

export const mean = (values) => {
  const list = values.filter((v) => v !== null && v !== undefined && !Number.isNaN(v));
  return list.length ? list.reduce((s, v) => s + v, 0) / list.length : null;
};

/** A 0..1 figure as a percentage with one decimal, "–" for none. */
export const pct = (value) => (value === null || value === undefined ? "–" : (value * 100).toFixed(1));

/** A Markdown table: a header row and rows of cells (pipes in cells escaped). */
export function markdownTable(header, rows) {
  const line = (cells) => `| ${cells.map((c) => String(c).replace(/\|/g, "\\|")).join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}
