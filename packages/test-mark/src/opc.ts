import type { Document, Element } from "@xmldom/xmldom";
import { childElements, documentElement, elementsNamed, fragment, parseXml, serializeXml } from "./xml.js";
import type { ZipPackage } from "./zip.js";

/*
 * The Open Packaging Conventions under every OOXML file: the content types of the parts and the
 * relationships between them, in the Transitional namespaces or the Strict ones.
 */

const contentTypesPart = "[Content_Types].xml";
const contentTypesNs = "http://schemas.openxmlformats.org/package/2006/content-types";
const relationshipsNs = "http://schemas.openxmlformats.org/package/2006/relationships";

/** A part's XML, parsed, and written back into the package by `save`. */
export class XmlPart {
  private constructor(
    readonly name: string,
    readonly document: Document,
  ) {}

  static read(pkg: ZipPackage, name: string): XmlPart {
    const text = pkg.text(name);
    if (text === undefined) throw new Error(`the package has no part ${name}`);
    return new XmlPart(name, parseXml(text, name));
  }

  static create(name: string, xml: string): XmlPart {
    return new XmlPart(name, parseXml(xml, name));
  }

  get root(): Element {
    return documentElement(this.document, this.name);
  }

  save(pkg: ZipPackage): void {
    pkg.setText(this.name, serializeXml(this.document));
  }
}

/** The parts with this content type, by the package's overrides ("word/header1.xml", no leading slash). */
export function partsOfType(pkg: ZipPackage, contentType: string): string[] {
  const types = XmlPart.read(pkg, contentTypesPart);
  return elementsNamed(types.document, contentTypesNs, "Override")
    .filter((override) => override.getAttribute("ContentType") === contentType)
    .map((override) => (override.getAttribute("PartName") ?? "").replace(/^\//, ""))
    .filter((part) => pkg.has(part));
}

/** Declares a new part's content type. */
export function addContentType(pkg: ZipPackage, part: string, contentType: string): void {
  const types = XmlPart.read(pkg, contentTypesPart);
  const override = types.document.createElementNS(contentTypesNs, "Override");
  override.setAttribute("PartName", `/${part}`);
  override.setAttribute("ContentType", contentType);
  types.root.appendChild(override);
  types.save(pkg);
}

/** The main part (word/document.xml, xl/workbook.xml, ppt/presentation.xml) and the relationship namespace its package uses. */
export function mainPart(pkg: ZipPackage): { part: string; relationshipNs: string } {
  const rels = Relationships.of(pkg, "");
  const main = rels.all().find((rel) => rel.type.endsWith("/officeDocument"));
  if (main === undefined) throw new Error("the package has no main document");
  return { part: main.target, relationshipNs: main.type.slice(0, -"/officeDocument".length) };
}

interface Relationship {
  id: string;
  type: string;
  /** The part it points at, resolved against the source part ("word/header1.xml"). */
  target: string;
}

/** The relationships of one part (or of the package, for ""). */
export class Relationships {
  private constructor(
    private readonly pkg: ZipPackage,
    private readonly sourceDir: string,
    private readonly part: XmlPart,
  ) {}

  static of(pkg: ZipPackage, source: string): Relationships {
    const slash = source.lastIndexOf("/");
    const dir = slash < 0 ? "" : source.slice(0, slash + 1);
    const name = `${dir}_rels/${source.slice(slash + 1)}.rels`;
    const part = pkg.has(name)
      ? XmlPart.read(pkg, name)
      : XmlPart.create(name, `<Relationships xmlns="${relationshipsNs}"/>`);
    return new Relationships(pkg, dir, part);
  }

  all(): Relationship[] {
    return childElements(this.part.root)
      .filter(
        (element) =>
          element.localName === "Relationship" && element.getAttribute("TargetMode") !== "External",
      )
      .map((element) => ({
        id: element.getAttribute("Id") ?? "",
        type: element.getAttribute("Type") ?? "",
        target: resolvePart(this.sourceDir, element.getAttribute("Target") ?? ""),
      }));
  }

  target(id: string): string | undefined {
    return this.all().find((rel) => rel.id === id)?.target;
  }

  /** Adds a relationship to a part in the source's own directory; returns its id. */
  add(type: string, target: string): string {
    const taken = new Set(childElements(this.part.root).map((element) => element.getAttribute("Id")));
    let id = "rIdOctavoTestMode";
    for (let n = 2; taken.has(id); n += 1) id = `rIdOctavoTestMode${n}`;
    const relationship = fragment(
      this.part.document,
      `<Relationship xmlns="${relationshipsNs}" Id="${id}" Type="${type}" Target="${target}"/>`,
    );
    this.part.root.appendChild(relationship);
    this.part.save(this.pkg);
    return id;
  }
}

/** "header1.xml" from "word/" → "word/header1.xml"; "/word/x.xml" → "word/x.xml"; ".." is resolved. */
function resolvePart(dir: string, target: string): string {
  const path = target.startsWith("/") ? target.slice(1) : `${dir}${target}`;
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "..") segments.pop();
    else if (segment !== "." && segment !== "") segments.push(segment);
  }
  return segments.join("/");
}

/** A part name not yet in the package: `${stem}.xml`, or `${stem}2.xml` and on. */
export function freePartName(pkg: ZipPackage, stem: string): string {
  let name = `${stem}.xml`;
  for (let n = 2; pkg.has(name); n += 1) name = `${stem}${n}.xml`;
  return name;
}
