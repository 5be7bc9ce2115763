// The package ships no types; this is the part of its API octavo calls (html-encoding-sniffer 7).
declare module "html-encoding-sniffer" {
  interface SniffOptions {
    xml?: boolean;
    transportLayerEncodingLabel?: string;
    defaultEncoding?: string;
    maxPrescanBytes?: number;
  }
  /** The canonical WHATWG encoding name: from the BOM, the transport label, a `<meta>`, else the default. */
  function sniffHtmlEncoding(bytes: Uint8Array, options?: SniffOptions): string;
  export = sniffHtmlEncoding;
}
