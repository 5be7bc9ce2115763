/**
 * The words a document has used so far, to undo end-of-line hyphenation only where the document says
 * the joined form is a word: "exam-" + "ple" becomes "example", but "well-" + "known" stays "well-known"
 * when the document writes "well-known" within a line and never "wellknown". A word the document has
 * not shown either way is joined, as most end-of-line hyphens are a typesetter's.
 */
export class Vocabulary {
  private readonly words = new Set<string>();
  private readonly hyphenated = new Set<string>();

  /** Learns the words of a line of text. */
  add(text: string): void {
    for (const match of text.matchAll(/\p{L}+(?:-\p{L}+)*/gu)) {
      const word = match[0].toLowerCase();
      if (word.includes("-")) {
        this.hyphenated.add(word);
        for (const part of word.split("-")) this.words.add(part);
      } else this.words.add(word);
    }
  }

  /** Whether the hyphen between `before` (ending a line) and `after` (starting the next) is kept. */
  readonly keepsHyphen = (before: string, after: string): boolean => {
    const left = /\p{L}+$/u.exec(before)?.[0]?.toLowerCase() ?? "";
    const right = /^\p{L}+/u.exec(after)?.[0]?.toLowerCase() ?? "";
    if (left === "" || right === "") return false;
    return this.hyphenated.has(`${left}-${right}`) && !this.words.has(left + right);
  };
}
