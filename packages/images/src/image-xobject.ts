import { createHash } from "node:crypto";
import { deflateSync } from "node:zlib";
import { type PDFDocument, PDFHexString, type PDFObject, type PDFRef } from "pdf-lib";

export type DeviceSpace = "DeviceGray" | "DeviceRGB" | "DeviceCMYK";

export const componentsOf: Record<DeviceSpace, number> = { DeviceGray: 1, DeviceRGB: 3, DeviceCMYK: 4 };

const deviceByComponents: Record<number, DeviceSpace> = { 1: "DeviceGray", 3: "DeviceRGB", 4: "DeviceCMYK" };

export function deviceSpaceFor(components: number): DeviceSpace | undefined {
  return deviceByComponents[components];
}

export interface ColourSpace {
  device: DeviceSpace;
  /** An ICC profile matching `device`: the space becomes /ICCBased with these bytes. */
  icc?: Uint8Array | undefined;
  /** Palette entries (components of `device` each): the space becomes /Indexed over it. */
  palette?: Uint8Array | undefined;
}

/** PNG-style row predictors the Flate data was written with (PNG IDAT data as it is). */
export interface PngPredictor {
  colors: number;
  bitsPerComponent: number;
  columns: number;
}

export type ImageData =
  /** A JPEG file's bytes, embedded as they are. `inverted`: Adobe CMYK, stored inverted. */
  | { filter: "DCTDecode"; bytes: Uint8Array; inverted: boolean }
  /** zlib data, of raw samples or of PNG-filtered rows. */
  | { filter: "FlateDecode"; bytes: Uint8Array; predictor?: PngPredictor | undefined };

export interface ImageObject {
  width: number;
  height: number;
  bitsPerComponent: number;
  colour: ColourSpace;
  data: ImageData;
  /** Opacity as a greyscale image of the same size. */
  alpha?: { bitsPerComponent: number; data: ImageData } | undefined;
}

/** Writes image XObjects into a pdf-lib document with our own dictionaries; one stream per ICC profile. */
export class ImageWriter {
  readonly #doc: PDFDocument;
  readonly #profiles = new Map<string, PDFRef>();

  constructor(doc: PDFDocument) {
    this.#doc = doc;
  }

  add(image: ImageObject): PDFRef {
    const smask =
      image.alpha === undefined
        ? undefined
        : this.#stream(
            image.width,
            image.height,
            image.alpha.bitsPerComponent,
            "DeviceGray",
            image.alpha.data,
          );
    return this.#stream(
      image.width,
      image.height,
      image.bitsPerComponent,
      this.#colourSpace(image.colour),
      image.data,
      smask === undefined ? {} : { SMask: smask },
    );
  }

  #stream(
    width: number,
    height: number,
    bitsPerComponent: number,
    colourSpace: PDFObject | DeviceSpace,
    data: ImageData,
    extra: Record<string, PDFObject> = {},
  ): PDFRef {
    const context = this.#doc.context;
    const dict = {
      Type: "XObject",
      Subtype: "Image",
      Width: width,
      Height: height,
      BitsPerComponent: bitsPerComponent,
      ColorSpace: colourSpace,
      Filter: data.filter,
      ...extra,
      ...filterParameters(data),
    };
    return context.register(context.stream(data.bytes, dict));
  }

  #colourSpace(colour: ColourSpace): PDFObject | DeviceSpace {
    const context = this.#doc.context;
    const base = colour.icc === undefined ? colour.device : context.obj(["ICCBased", this.#profile(colour)]);
    if (colour.palette === undefined) return base;
    const entries = colour.palette.length / componentsOf[colour.device];
    return context.obj([
      "Indexed",
      base,
      entries - 1,
      PDFHexString.of(Buffer.from(colour.palette).toString("hex")),
    ]);
  }

  /** The profile's stream, shared by every image with the same profile. */
  #profile(colour: ColourSpace): PDFRef {
    const icc = colour.icc ?? new Uint8Array();
    const key = createHash("sha256").update(icc).digest("hex");
    let ref = this.#profiles.get(key);
    if (ref === undefined) {
      const context = this.#doc.context;
      ref = context.register(
        context.stream(deflateSync(icc), {
          N: componentsOf[colour.device],
          Alternate: colour.device,
          Filter: "FlateDecode",
        }),
      );
      this.#profiles.set(key, ref);
    }
    return ref;
  }
}

/** What the filter needs besides its name: /Decode for inverted CMYK JPEG, /DecodeParms for PNG rows. */
function filterParameters(data: ImageData) {
  if (data.filter === "DCTDecode") return data.inverted ? { Decode: [1, 0, 1, 0, 1, 0, 1, 0] } : {};
  if (data.predictor === undefined) return {};
  const { colors, bitsPerComponent, columns } = data.predictor;
  return {
    DecodeParms: { Predictor: 15, Colors: colors, BitsPerComponent: bitsPerComponent, Columns: columns },
  };
}
