import { testModeStamp } from "./stamp.js";
import { childElements, documentElement, elementsNamed, fragment, parseXml, serializeXml } from "./xml.js";
import type { ZipPackage } from "./zip.js";

const styleNs = "urn:oasis:names:tc:opendocument:xmlns:style:1.0";
const textNs = "urn:oasis:names:tc:opendocument:xmlns:text:1.0";
/** A master page's headers: every page, left pages, the first page. */
const headerNames = ["header", "header-left", "header-first"];

const stampParagraph = `<text:p xmlns:text="${textNs}">${testModeStamp}</text:p>`;

/**
 * Puts the stamp first in the header of every master page (page style) of an OpenDocument text, giving a
 * master page without one a header holding only the stamp.
 */
export function markOdt(pkg: ZipPackage): void {
  const part = "styles.xml";
  const text = pkg.text(part);
  if (text === undefined) throw new Error("the document has no styles.xml");
  const styles = parseXml(text, part);
  documentElement(styles, part);
  const masters = elementsNamed(styles, styleNs, "master-page");
  if (masters.length === 0) throw new Error("the document has no master page");
  for (const master of masters) {
    const headers = childElements(master).filter(
      (element) => element.namespaceURI === styleNs && headerNames.includes(element.localName ?? ""),
    );
    for (const header of headers) header.insertBefore(fragment(styles, stampParagraph), header.firstChild);
    if (!headers.some((header) => header.localName === "header")) {
      const header = fragment(
        styles,
        `<style:header xmlns:style="${styleNs}">${stampParagraph}</style:header>`,
      );
      // The headers come first in a master page.
      master.insertBefore(header, master.firstChild);
    }
  }
  pkg.setText(part, serializeXml(styles));
}
