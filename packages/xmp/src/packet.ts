import { DOMParser, type Document, type Element, XMLSerializer } from "@xmldom/xmldom";

export const namespaces = {
  x: "adobe:ns:meta/",
  rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
  xml: "http://www.w3.org/XML/1998/namespace",
  xmlns: "http://www.w3.org/2000/xmlns/",
  dc: "http://purl.org/dc/elements/1.1/",
  pdf: "http://ns.adobe.com/pdf/1.3/",
  xmp: "http://ns.adobe.com/xap/1.0/",
  pdfaid: "http://www.aiim.org/pdfa/ns/id/",
} as const;

/** The prefixes new properties are written with, unless the packet binds the namespace already. */
const usualPrefixes: Record<string, string> = {
  [namespaces.dc]: "dc",
  [namespaces.pdf]: "pdf",
  [namespaces.xmp]: "xmp",
};

/**
 * How a property's value is written: plain text, a language alternative (dc:title, whose x-default item
 * is the value), an ordered list (dc:creator) or an unordered one (dc:subject).
 */
export type XmpForm = "text" | "alt" | "seq" | "bag";

const containers = { alt: "Alt", seq: "Seq", bag: "Bag" } as const;

export interface XmpProperty {
  namespace: string;
  name: string;
  form: XmpForm;
}

/**
 * An XMP packet as a namespace-aware DOM: properties are found by namespace URI whatever their prefix,
 * whether written as attributes of an rdf:Description or as elements. Properties it is not asked about
 * (other schemas, PDF/A identification and extension schemas) are left exactly as they are.
 */
export class XmpPacket {
  private readonly root: Element;
  private readonly rdf: Element;

  private constructor(root: Element, rdf: Element) {
    this.root = root;
    this.rdf = rdf;
  }

  /** Throws a readable Error when the text is not well-formed XML or holds no rdf:RDF. */
  static parse(text: string): XmpPacket {
    const parser = new DOMParser({
      onError: (level, message) => {
        if (level !== "warning") throw new Error(message);
      },
    });
    const document = parser.parseFromString(text, "text/xml");
    const rdf = document.getElementsByTagNameNS(namespaces.rdf, "RDF").item(0);
    if (rdf === null) throw new Error("the packet has no rdf:RDF element");
    const meta = document.getElementsByTagNameNS(namespaces.x, "xmpmeta").item(0);
    return new XmpPacket(meta ?? rdf, rdf);
  }

  /** An empty packet: one rdf:Description about the document. */
  static empty(): XmpPacket {
    return XmpPacket.parse(
      `<x:xmpmeta xmlns:x="${namespaces.x}"><rdf:RDF xmlns:rdf="${namespaces.rdf}"><rdf:Description rdf:about=""/></rdf:RDF></x:xmpmeta>`,
    );
  }

  /**
   * The property's value: the x-default item of an alternative (else its first), the items of a list
   * joined by ", ", or the text. Undefined when the packet does not have it.
   */
  get(property: Pick<XmpProperty, "namespace" | "name">): string | undefined {
    for (const description of this.descriptions()) {
      const attribute = description.getAttributeNodeNS(property.namespace, property.name);
      if (attribute !== null) return attribute.value;
      const element = childNamed(description, property.namespace, property.name);
      if (element !== undefined) return propertyValue(element);
    }
    return undefined;
  }

  /** Removes every occurrence of the property. */
  remove(property: XmpProperty): void {
    for (const description of this.descriptions()) {
      const attribute = description.getAttributeNodeNS(property.namespace, property.name);
      if (attribute !== null) description.removeAttributeNode(attribute);
      for (
        let element = childNamed(description, property.namespace, property.name);
        element !== undefined;
      ) {
        description.removeChild(element);
        element = childNamed(description, property.namespace, property.name);
      }
    }
  }

  /** Replaces the property with `values` (one item, or a list's items) in the form it takes. */
  set(property: XmpProperty, values: string[]): void {
    this.remove(property);
    const description = this.descriptionFor(property.namespace);
    const document = this.document();
    const element = document.createElementNS(property.namespace, this.qualified(description, property));
    if (property.form === "text") {
      element.appendChild(document.createTextNode(values.join(", ")));
    } else {
      const container = document.createElementNS(namespaces.rdf, this.rdfName(containers[property.form]));
      for (const value of values) {
        const item = document.createElementNS(namespaces.rdf, this.rdfName("li"));
        if (property.form === "alt") item.setAttributeNS(namespaces.xml, "xml:lang", "x-default");
        item.appendChild(document.createTextNode(value));
        container.appendChild(item);
      }
      element.appendChild(container);
    }
    description.appendChild(element);
  }

  /** The packet's text, wrapped in xpacket instructions with room to edit it in place later. */
  serialize(): string {
    // The parser turned every raw carriage return into a line feed, so one left in the tree came from a
    // character reference (&#xD;), which the serializer would write back raw, to be read as a line feed.
    let body = new XMLSerializer()
      .serializeToString(this.root, { requireWellFormed: true })
      .replaceAll("\r", "&#xD;");
    if (this.root === this.rdf) body = `<x:xmpmeta xmlns:x="${namespaces.x}">${body}</x:xmpmeta>`;
    const padding = `${" ".repeat(99)}\n`.repeat(20);
    return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>\n${body}\n${padding}<?xpacket end="w"?>`;
  }

  private descriptions(): Element[] {
    const found: Element[] = [];
    for (let node = this.rdf.firstChild; node !== null; node = node.nextSibling) {
      if (isElement(node, namespaces.rdf, "Description")) found.push(node);
    }
    return found;
  }

  /** The description that already holds properties of the namespace, else the first one (made if none). */
  private descriptionFor(namespace: string): Element {
    const descriptions = this.descriptions();
    const holding = descriptions.find((description) => {
      for (let node = description.firstChild; node !== null; node = node.nextSibling) {
        if (isElement(node, namespace)) return true;
      }
      return false;
    });
    const chosen = holding ?? descriptions[0];
    if (chosen !== undefined) return chosen;
    const made = this.document().createElementNS(namespaces.rdf, this.rdfName("Description"));
    made.setAttributeNS(namespaces.rdf, this.rdfName("about"), "");
    this.rdf.appendChild(made);
    return made;
  }

  /** "dc:title" with the prefix bound to the namespace where the element goes, binding one if need be. */
  private qualified(description: Element, property: XmpProperty): string {
    // lookupPrefix() gives "" where the namespace is only the default one (xmlns="…"), as old packets do.
    const bound = description.lookupPrefix(property.namespace);
    if (bound !== null && bound !== "") return `${bound}:${property.name}`;
    const usual = usualPrefixes[property.namespace] ?? "ns";
    let prefix = usual;
    for (let suffix = 1; ; suffix += 1) {
      const taken = description.lookupNamespaceURI(prefix);
      if (taken === property.namespace) return `${prefix}:${property.name}`;
      if (taken === null) break;
      prefix = `${usual}${suffix}`;
    }
    description.setAttributeNS(namespaces.xmlns, `xmlns:${prefix}`, property.namespace);
    return `${prefix}:${property.name}`;
  }

  private document(): Document {
    const document = this.rdf.ownerDocument;
    if (document === null) throw new Error("the packet's elements belong to no document");
    return document;
  }

  private rdfName(local: string): string {
    return `${this.rdf.prefix ?? "rdf"}:${local}`;
  }
}

function isElement(node: { nodeType: number }, namespace: string, localName?: string): node is Element {
  if (node.nodeType !== 1) return false;
  const element = node as Element;
  return element.namespaceURI === namespace && (localName === undefined || element.localName === localName);
}

function childNamed(parent: Element, namespace: string, name: string): Element | undefined {
  for (let node = parent.firstChild; node !== null; node = node.nextSibling) {
    if (isElement(node, namespace, name)) return node;
  }
  return undefined;
}

function propertyValue(element: Element): string {
  const items = element.getElementsByTagNameNS(namespaces.rdf, "li");
  if (items.length === 0) return element.textContent ?? "";
  const values: { text: string; lang: string | null }[] = [];
  for (let index = 0; index < items.length; index += 1) {
    const item = items.item(index);
    if (item !== null) values.push({ text: item.textContent ?? "", lang: item.getAttribute("xml:lang") });
  }
  if (element.getElementsByTagNameNS(namespaces.rdf, "Alt").length > 0) {
    return (values.find((value) => value.lang === "x-default") ?? values[0])?.text ?? "";
  }
  return values.map((value) => value.text).join(", ");
}
