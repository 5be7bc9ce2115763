import { DOMParser, type Element } from "@xmldom/xmldom";

export const namespaces = {
  rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
  pdfaid: "http://www.aiim.org/pdfa/ns/id/",
  xmp: "http://ns.adobe.com/xap/1.0/",
  pdf: "http://ns.adobe.com/pdf/1.3/",
  dc: "http://purl.org/dc/elements/1.1/",
} as const;

/** An XMP packet read with a namespace-aware XML parser (property prefixes do not matter, URIs do). */
export class Xmp {
  private readonly descriptions: Element[];

  private constructor(descriptions: Element[]) {
    this.descriptions = descriptions;
  }

  /** Throws a readable Error when the packet is not well-formed XML or has no RDF descriptions. */
  static parse(text: string): Xmp {
    const parser = new DOMParser({
      onError: (level, message) => {
        if (level !== "warning") throw new Error(message);
      },
    });
    const document = parser.parseFromString(text, "text/xml");
    const found = document.getElementsByTagNameNS(namespaces.rdf, "Description");
    const descriptions: Element[] = [];
    for (let index = 0; index < found.length; index += 1) {
      const element = found.item(index);
      if (element !== null) descriptions.push(element);
    }
    if (descriptions.length === 0) throw new Error("the packet has no rdf:Description");
    return new Xmp(descriptions);
  }

  /**
   * A simple property, written either as an attribute of rdf:Description or as a child element. For
   * language alternatives (dc:title) the x-default item, for sequences (dc:creator) the items joined by
   * ", " are returned.
   */
  property(namespace: string, name: string): string | undefined {
    for (const description of this.descriptions) {
      const attribute = description.getAttributeNodeNS(namespace, name);
      if (attribute !== null) return attribute.value;
      const elements = description.getElementsByTagNameNS(namespace, name);
      const element = elements.item(0);
      if (element !== null) return textOf(element);
    }
    return undefined;
  }
}

function textOf(element: Element): string {
  const items = element.getElementsByTagNameNS(namespaces.rdf, "li");
  if (items.length === 0) return element.textContent ?? "";
  const values: { text: string; lang: string | null }[] = [];
  for (let index = 0; index < items.length; index += 1) {
    const item = items.item(index);
    if (item !== null) values.push({ text: item.textContent ?? "", lang: item.getAttribute("xml:lang") });
  }
  const isAlternative = element.getElementsByTagNameNS(namespaces.rdf, "Alt").length > 0;
  if (isAlternative) return (values.find((value) => value.lang === "x-default") ?? values[0])?.text ?? "";
  return values.map((value) => value.text).join(", ");
}
