import type * as Mupdf from "mupdf";
import { CappedLog } from "../capped-text.js";

export type MupdfModule = typeof Mupdf;

// MuPDF prints a line per broken stream (hundreds on some files); keep a few for warnings and logs.
const mupdfLog = new CappedLog(20);
let loading: Promise<MupdfModule> | undefined;

/** Loads the MuPDF WASM module on first use, so importing this package stays cheap. */
export function loadMupdf(): Promise<MupdfModule> {
  loading ??= import("mupdf").then((mupdf) => {
    mupdf.setLog({
      error: (message) => mupdfLog.add(message.trim()),
      warning: (message) => mupdfLog.add(message.trim()),
    });
    return mupdf;
  });
  return loading;
}

/** MuPDF's messages since the last call. */
export function drainMupdfLog(): string[] {
  return mupdfLog.drain();
}
