import type { Mupdf } from "@octavo/mupdf";
import { currentMupdf } from "@octavo/mupdf";

/**
 * The form field widgets MuPDF should draw into the text. An unsigned signature field without an
 * appearance of its own is left out: MuPDF would draw its own "SIGN" placeholder there, text that no
 * other viewer shows.
 */
function drawnWidgets(page: Mupdf.Page): Mupdf.PDFWidget[] {
  const pdfPage = page as Partial<Mupdf.PDFPage>;
  try {
    const widgets = pdfPage.getWidgets?.() ?? [];
    return widgets.filter((w) => w.getFieldType() !== "signature" || !w.getObject().get("AP").isNull());
  } catch {
    return [];
  }
}

/**
 * The page's structured text, with what its form fields show.
 *
 * MuPDF's `page.toStructuredText` runs the page contents only, so filled-in form values, which live
 * in the widgets' appearance streams and not in the contents, were lost although viewers and
 * pdftotext show them. Running the widgets as well draws each value once, in its own font and place,
 * exactly as a viewer would: MuPDF synthesises the appearance when the form asks for it
 * (/NeedAppearances), a checkbox or radio button shows its mark and never its export value ("Yes",
 * "Off"), and a combo box shows its selected option. Nothing is added on top of what the appearance
 * draws, so a field whose appearance already holds its value is not doubled. Other annotations
 * (comments, stamps, links) stay out: they are not part of the page's content.
 *
 * Without widgets, the page's own structured text is used, unchanged.
 */
export function pageStructuredText(page: Mupdf.Page, options: string): Mupdf.StructuredText {
  const widgets = drawnWidgets(page);
  if (!widgets.length) return page.toStructuredText(options);
  // The identity matrix gives page space, as `toStructuredText` does: MuPDF applies /Rotate itself.
  const mupdf = currentMupdf();
  const list = new mupdf.DisplayList(page.getBounds());
  try {
    const device = new mupdf.DisplayListDevice(list);
    try {
      page.runPageContents(device, mupdf.Matrix.identity);
      for (const widget of widgets) widget.run(device, mupdf.Matrix.identity);
      device.close();
    } finally {
      device.destroy();
    }
    return list.toStructuredText(options);
  } finally {
    list.destroy();
  }
}
