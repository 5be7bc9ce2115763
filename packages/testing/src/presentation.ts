import pptxgenjs from "pptxgenjs";

type PresentationClass = typeof pptxgenjs.default;

/**
 * pptxgenjs's class, for tests that make PowerPoint files: its types describe the CommonJS build, where the
 * class is the module's `default`; Node loads its ES build, whose default export is the class itself.
 */
export const Presentation: PresentationClass =
  (pptxgenjs as unknown as { default?: PresentationClass }).default ??
  (pptxgenjs as unknown as PresentationClass);
