export { type AnalyzeDocumentOptions, analyzeDocument } from "./document.js";
export { tablesOf, tableToGrid } from "./grid.js";
export { type AnalyzeOptions, analyzePage } from "./page.js";
export type {
  Block,
  Box,
  DocumentLayout,
  FontStyle,
  ImageBlock,
  PageLayout,
  Paragraph,
  Table,
  TableCell,
  TextLine,
  TextSpan,
} from "./types.js";
