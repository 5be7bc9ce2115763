export { type ImageToPdfOptions, imageToPdf } from "./image-to-pdf.js";
export { type PdfToImageOptions, pdfToImage } from "./pdf-to-image.js";
