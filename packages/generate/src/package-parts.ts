/** The relationships part of a package part: word/document.xml → word/_rels/document.xml.rels. */
export function relationshipsOf(part: string): string {
  const slash = part.lastIndexOf("/");
  return `${part.slice(0, slash)}/_rels/${part.slice(slash + 1)}.rels`;
}
