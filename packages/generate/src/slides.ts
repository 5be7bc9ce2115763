import { JobFailure } from "@octavo/engines/errors";
import type PizZip from "pizzip";
import { ExpressionError, lookup, parseExpression } from "./expressions.js";
import type { OfficeTemplate } from "./office-template.js";
import { relationshipsOf } from "./package-parts.js";
import { MissingData } from "./placeholder-parser.js";

/*
 * Slide loops: a slide holding {:items} is repeated once per item of the list, each copy rendered with the
 * item's fields over the data's, in the list's order where the slide was; an empty list removes the slide.
 * Each copy is the slide rendered from the whole deck with that item's data, which keeps the renderer
 * docxtemplater's own; decks are small, and only the loop slides are taken from those renders.
 */

interface SlideLoop {
  /** ppt/slides/slideN.xml */
  part: string;
  path: readonly string[];
  tag: string;
}

const loopPattern = /\{\s*:([^}]*)\}/;

function slideText(xml: string): string {
  return [...xml.matchAll(/<a:t(?:\s[^>]*)?>([^<]*)<\/a:t>/g)].map((match) => match[1]).join("");
}

/** The deck's loop slides; a loop over anything but a data path is a template error. */
export function findSlideLoops(zip: PizZip, templateName: string): SlideLoop[] {
  const loops: SlideLoop[] = [];
  for (const part of Object.keys(zip.files).filter((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name))) {
    const found = loopPattern.exec(slideText(zip.file(part)?.asText() ?? ""));
    if (!found) continue;
    const tag = `:${found[1]}`;
    try {
      const expression = parseExpression(found[1] ?? "");
      if (expression.left.kind !== "path" || expression.compare || expression.formatters.length > 0) {
        throw new ExpressionError("a slide loop names a list in the data, nothing more");
      }
      loops.push({ part, path: expression.left.path, tag });
    } catch (error) {
      throw new JobFailure(
        "invalid_input",
        `${templateName} has template errors: {${tag}} on ${part.replace(/^ppt\/slides\/slide(\d+)\.xml$/, "slide $1")}: ${error instanceof Error ? error.message : String(error)}.`,
      );
    }
  }
  return loops;
}

function itemsOf(
  loop: SlideLoop,
  data: Readonly<Record<string, unknown>>,
  missing: "error" | "empty",
): unknown[] {
  const found = lookup(loop.path, [data]);
  if (!found.found) {
    if (missing === "empty") return [];
    throw new MissingData(loop.tag);
  }
  if (found.value === null || found.value === undefined || found.value === false) return [];
  return Array.isArray(found.value) ? found.value : [found.value];
}

function withItem(data: Readonly<Record<string, unknown>>, item: unknown): Record<string, unknown> {
  const merged: Record<string, unknown> = Object.assign(Object.create(null), data);
  if (typeof item === "object" && item !== null && !Array.isArray(item)) Object.assign(merged, item);
  return merged;
}

/** Renders a deck with slide loops: the other slides once with `data`, each loop slide once per item. */
export function renderDeck(
  template: OfficeTemplate,
  data: Readonly<Record<string, unknown>>,
  loops: readonly SlideLoop[],
  missing: "error" | "empty",
  item?: number,
): PizZip {
  const deck = template.render(data, item, withLoopsBlank(template, loops));
  for (const loop of loops) {
    let items: unknown[];
    try {
      items = itemsOf(loop, data, missing);
    } catch (error) {
      throw new JobFailure(
        "invalid_options",
        `The data${item === undefined ? "" : ` (item ${item} of the data)`} has no value for {${loop.tag}} on ${loop.part.replace(/^ppt\/slides\/slide(\d+)\.xml$/, "slide $1")}. Add the list, or send missing: "empty" to drop the slide.`,
        { cause: error },
      );
    }
    const others = loops.filter((other) => other !== loop);
    const copies = items.map(
      (each) =>
        template
          .render(withItem(data, each), item, withLoopsBlank(template, others))
          .file(loop.part)
          ?.asText() ?? "",
    );
    replaceSlide(deck, loop.part, copies);
  }
  return deck;
}

/**
 * A fresh package of the deck with the text of `loops`' slides removed: rendered with data that is not
 * their item's, their placeholders would name fields it lacks. Their text comes from their own renders.
 */
function withLoopsBlank(template: OfficeTemplate, loops: readonly SlideLoop[]): PizZip {
  const zip = template.freshPackage();
  for (const loop of loops) {
    const xml = zip.file(loop.part)?.asText() ?? "";
    zip.file(loop.part, xml.replace(/(<a:t(?:\s[^>]*)?>)[^<]*(<\/a:t>)/g, "$1$2"));
  }
  return zip;
}

const slideType = "application/vnd.openxmlformats-officedocument.presentationml.slide+xml";

/** Puts `copies` where the slide `part` was, in order: the first in its part, the rest in new parts. */
function replaceSlide(deck: PizZip, part: string, copies: readonly string[]): void {
  const presentationRels = deck.file("ppt/_rels/presentation.xml.rels")?.asText() ?? "";
  const target = part.replace(/^ppt\//, "");
  const relation =
    new RegExp(`<Relationship [^>]*Id="([^"]+)"[^>]*Target="/?(?:ppt/)?${target}"[^>]*/>`).exec(
      presentationRels,
    ) ??
    new RegExp(`<Relationship [^>]*Target="/?(?:ppt/)?${target}"[^>]*Id="([^"]+)"[^>]*/>`).exec(
      presentationRels,
    );
  const relationId = relation?.[1];
  let presentation = deck.file("ppt/presentation.xml")?.asText() ?? "";
  const slideEntry = relationId
    ? new RegExp(`<p:sldId [^>]*r:id="${relationId}"[^>]*/>`).exec(presentation)
    : null;
  if (!relationId || !slideEntry) throw new Error(`${part} is not in the deck's slide list`);
  if (copies.length === 0) {
    presentation = presentation.replace(slideEntry[0], "");
    deck.file("ppt/presentation.xml", presentation);
    return;
  }
  const [first, ...rest] = copies as [string, ...string[]];
  deck.file(part, first);
  const slideRels = (deck.file(relationshipsOf(part))?.asText() ?? "")
    // A notes slide belongs to one slide: the copies go without.
    .replace(/<Relationship [^>]*relationships\/notesSlide"[^>]*\/>/g, "");
  let ids = Math.max(
    256,
    ...[...presentation.matchAll(/<p:sldId [^>]*\bid="(\d+)"/g)].map((m) => Number(m[1])),
  );
  let rels = presentationRels;
  let types = deck.file("[Content_Types].xml")?.asText() ?? "";
  let entries = "";
  let number = Math.max(
    ...Object.keys(deck.files).map((name) => Number(/^ppt\/slides\/slide(\d+)\.xml$/.exec(name)?.[1] ?? 0)),
  );
  for (const copy of rest) {
    number += 1;
    ids += 1;
    const name = `slides/slide${number}.xml`;
    deck.file(`ppt/${name}`, copy);
    deck.file(relationshipsOf(`ppt/${name}`), slideRels);
    const id = `rIdOctavoSlide${number}`;
    rels = rels.replace(
      "</Relationships>",
      `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="${name}"/></Relationships>`,
    );
    types = types.replace(
      "</Types>",
      `<Override PartName="/ppt/${name}" ContentType="${slideType}"/></Types>`,
    );
    entries += `<p:sldId id="${ids}" r:id="${id}"/>`;
  }
  deck.file("ppt/_rels/presentation.xml.rels", rels);
  deck.file("[Content_Types].xml", types);
  deck.file("ppt/presentation.xml", presentation.replace(slideEntry[0], slideEntry[0] + entries));
}
