import { DOMParser, type Document, type Element, XMLSerializer } from "@xmldom/xmldom";

/** Parses one part of a package; a part that is not well-formed XML throws, naming the part. */
export function parseXml(text: string, part: string): Document {
  const parser = new DOMParser({
    onError: (level, message) => {
      if (level !== "warning") throw new Error(`${part} is not well-formed XML: ${message}`);
    },
  });
  return parser.parseFromString(text, "text/xml");
}

export function serializeXml(document: Document): string {
  return new XMLSerializer().serializeToString(document);
}

/** The element's child elements, in order. */
export function childElements(parent: Element): Element[] {
  const children: Element[] = [];
  for (let node = parent.firstChild; node !== null; node = node.nextSibling) {
    if (node.nodeType === node.ELEMENT_NODE) children.push(node as Element);
  }
  return children;
}

/** Every element of the document with this namespace and local name, in document order. */
export function elementsNamed(document: Document | Element, namespace: string, localName: string): Element[] {
  return Array.from(document.getElementsByTagNameNS(namespace, localName));
}

export function documentElement(document: Document, part: string): Element {
  const root = document.documentElement;
  if (root === null) throw new Error(`${part} has no root element`);
  return root;
}

/** Inserts `child` before the first child element named one of `before` (local names), else at the end. */
export function insertBefore(parent: Element, child: Element, before: readonly string[]): void {
  const next = childElements(parent).find((element) => before.includes(element.localName ?? ""));
  parent.insertBefore(child, next ?? null);
}

/**
 * Parses an XML fragment whose root declares its namespaces, as an element of `owner`. The declarations are
 * dropped: the serializer declares what is not already in scope where the element ends up.
 */
export function fragment(owner: Document, xml: string): Element {
  const parsed = parseXml(xml, "the test-mode mark");
  const element = owner.importNode(documentElement(parsed, "the test-mode mark"), true) as Element;
  for (const attribute of Array.from(element.attributes)) {
    if (attribute.name === "xmlns" || attribute.name.startsWith("xmlns:"))
      element.removeAttributeNode(attribute);
  }
  return element;
}
