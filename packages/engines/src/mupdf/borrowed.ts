/**
 * MuPDF.js 1.28.1 passes a custom Device's fillShade, fillImage, fillImageMask and clipImageMask callbacks a
 * wrapper around a borrowed pointer (no keep) that still registers a drop finaliser, so the garbage collector
 * later drops that shade or image once too often and corrupts the WASM heap (a crash in a later free).
 * Call this on such a wrapper when the callback is done with it. Other wrappers (paths, text, colour
 * spaces) hold their own reference and must not be passed here.
 */
export function forgetBorrowed(wrapper: object): void {
  const owner = wrapper.constructor as { _finalizer?: FinalizationRegistry<unknown> };
  owner._finalizer?.unregister(wrapper);
  (wrapper as { pointer: number }).pointer = 0;
}
