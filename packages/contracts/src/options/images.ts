import { Type } from "@sinclair/typebox";
import { optionsObject, stringEnum, withDefault } from "../schema-helpers.js";
import { pageList } from "./pages.js";

export const PdfToImageOptions = optionsObject(
  {
    format: withDefault(stringEnum(["png", "jpeg", "webp"], "Image format of every page."), "png"),
    dpi: withDefault(
      Type.Integer({
        minimum: 36,
        maximum: 600,
        description: "Resolution: each image is the page's visible size in inches × dpi pixels.",
      }),
      150,
    ),
    pages: Type.Optional(
      pageList('Pages to render, e.g. "1-3, 5". Omitted: all pages; one image per page, in page order.'),
    ),
    quality: withDefault(
      Type.Integer({ minimum: 1, maximum: 100, description: "Compression quality of jpeg and webp images." }),
      85,
    ),
  },
  "Options of PDF to Image.",
);

export const ImageToPdfOptions = optionsObject(
  {
    pageSize: withDefault(
      stringEnum(
        ["fit", "A4", "Letter"],
        "fit: each page is its image's size at the image's own resolution (72 dpi when it has none); " +
          "A4 or Letter: the image is scaled to fit the page, centred.",
      ),
      "fit",
    ),
    orientation: withDefault(
      stringEnum(
        ["auto", "portrait", "landscape"],
        "Page orientation for A4 and Letter; auto turns the page to landscape for a landscape image.",
      ),
      "auto",
    ),
    margin: withDefault(
      stringEnum(["none", "small", "normal"], "White margin around each image: 0, 18 or 36 points."),
      "none",
    ),
  },
  "Options of Image to PDF.",
);
