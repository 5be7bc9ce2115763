export { readPkcs12, type SigningIdentity } from "./pkcs12.js";
export { type SignInputs, type SignOptions, signPdf } from "./sign.js";
export { signatureFields } from "./signature-field.js";
