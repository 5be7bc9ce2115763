export type { RendererLogger } from "./logger.js";
export {
  type HtmlRenderOptions,
  type MarginName,
  type MediaType,
  marginSizes,
  type PaperFormat,
} from "./options.js";
export { HtmlRenderer, type HtmlRendererOptions, type RenderResult } from "./renderer.js";
