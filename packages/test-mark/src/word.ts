import type { Element } from "@xmldom/xmldom";
import { addContentType, freePartName, mainPart, Relationships, XmlPart } from "./opc.js";
import { testModeStamp } from "./stamp.js";
import { childElements, elementsNamed, fragment } from "./xml.js";
import type { ZipPackage } from "./zip.js";

const headerContentType = "application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml";
/** The header kinds a section may have; "first" and "even" show only when the document turns them on. */
const headerKinds = ["default", "first", "even"] as const;

/** A centred, bold, red paragraph saying so, in the header's own namespace (Transitional or Strict). */
function stampParagraph(wordNs: string): string {
  return (
    `<w:p xmlns:w="${wordNs}"><w:pPr><w:jc w:val="center"/></w:pPr>` +
    `<w:r><w:rPr><w:b/><w:color w:val="C00000"/></w:rPr><w:t>${testModeStamp}</w:t></w:r></w:p>`
  );
}

/**
 * Puts the stamp at the top of every header a page of the document shows. A section's header of each
 * kind is its own (the stamp goes first in it), inherited from the section before (marked there), or,
 * in the first section that has none, a header part of ours holding only the stamp.
 */
export function markDocx(pkg: ZipPackage): void {
  const { part, relationshipNs } = mainPart(pkg);
  const document = XmlPart.read(pkg, part);
  const wordNs = document.root.namespaceURI ?? "";
  const rels = Relationships.of(pkg, part);
  const marked = new Set<string>();
  const inherited = new Set<string>();
  let stampId: string | undefined;

  const markHeader = (headerPart: string) => {
    if (marked.has(headerPart)) return;
    const header = XmlPart.read(pkg, headerPart);
    header.root.insertBefore(fragment(header.document, stampParagraph(wordNs)), header.root.firstChild);
    header.save(pkg);
    marked.add(headerPart);
  };
  const ourHeader = () => {
    if (stampId !== undefined) return stampId;
    const dir = part.slice(0, part.lastIndexOf("/") + 1);
    const name = freePartName(pkg, `${dir}header-octavo-test-mode`);
    pkg.setText(name, `<w:hdr xmlns:w="${wordNs}">${stampParagraph(wordNs)}</w:hdr>`);
    addContentType(pkg, name, headerContentType);
    stampId = rels.add(`${relationshipNs}/header`, name.slice(dir.length));
    return stampId;
  };

  // Sections in document order; a tracked change's record of an old section (sectPrChange) is not one.
  const sections = elementsNamed(document.document, wordNs, "sectPr").filter(
    (section) => (section.parentNode as Element | null)?.localName !== "sectPrChange",
  );
  if (sections.length === 0) {
    // No section properties: one section with the defaults; give it its header.
    const body = elementsNamed(document.document, wordNs, "body")[0];
    if (body === undefined) throw new Error(`${part} has no body`);
    body.appendChild(fragment(document.document, `<w:sectPr xmlns:w="${wordNs}"/>`));
    sections.push(...elementsNamed(document.document, wordNs, "sectPr"));
  }
  for (const section of sections) {
    for (const kind of headerKinds) {
      const reference = childElements(section).find(
        (element) =>
          element.localName === "headerReference" &&
          element.namespaceURI === wordNs &&
          (element.getAttributeNS(wordNs, "type") || "default") === kind,
      );
      const target = reference && rels.target(reference.getAttributeNS(relationshipNs, "id") ?? "");
      if (target !== undefined && reference !== undefined) {
        markHeader(target);
        inherited.add(kind);
      } else if (reference !== undefined) {
        // A reference to no part: the section shows no header of that kind; it shows ours instead.
        reference.setAttributeNS(relationshipNs, "r:id", ourHeader());
        inherited.add(kind);
      } else if (!inherited.has(kind)) {
        const added = fragment(
          document.document,
          `<w:headerReference xmlns:w="${wordNs}" xmlns:r="${relationshipNs}" w:type="${kind}" r:id="${ourHeader()}"/>`,
        );
        // Header and footer references come first in a section's properties.
        section.insertBefore(added, section.firstChild);
        inherited.add(kind);
      }
    }
  }
  document.save(pkg);
}
