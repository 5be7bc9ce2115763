export {
  bothForms,
  type DateParts,
  fixGhostscriptDate,
  instantOf,
  type ParsedDate,
  parsePdfDate,
  parseXmpDate,
  pdfDateToXmp,
  xmpDateToPdf,
} from "./dates.js";
export { namespaces, type XmpForm, XmpPacket, type XmpProperty } from "./packet.js";
