export { fillTemplate, type GenerateContext, type GenerateOptions } from "./fill-template.js";
