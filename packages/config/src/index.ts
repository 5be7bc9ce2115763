export { type Config, ConfigError, loadConfig, redactUrl, unknownSettings } from "./config.js";
export { createLogger, type Logger } from "./logger.js";
export { ensureSecretKey } from "./secret-key.js";
