import { type Catalogue, catalogue } from "../catalogue.js";
import type { OperationId } from "../operation-ids.js";
import type { OptionsAfterDefaults } from "../schema-helpers.js";

/** The options schema of every operation, keyed by id, as the catalogue gives them. */
export const optionsSchemas = Object.fromEntries(
  Object.entries(catalogue).map(([id, entry]) => [id, entry.options]),
) as { readonly [Id in OperationId]: Catalogue[Id]["options"] };

/** An operation's options as the engines receive them: validated, with every default applied. */
export type OptionsOf<Id extends OperationId> = OptionsAfterDefaults<Catalogue[Id]["options"]>;

export { type OcrLanguage, ocrLanguages } from "./ocr.js";
export { type PdfaLevel, pdfaLevels } from "./pdf-conversions.js";
