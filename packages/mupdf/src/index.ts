/** MuPDF.js's types, for code that holds its objects (the values come from an instance above). */
export type * as Mupdf from "mupdf";
export {
  currentMupdf,
  drainMupdfLog,
  instanceMemory,
  loadMupdf,
  type MupdfModule,
  renewMupdf,
} from "./instances.js";
