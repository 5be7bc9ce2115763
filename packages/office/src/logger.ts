/** The subset of a pino-style logger the converter uses. */
export interface OfficeLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export const silentLogger: OfficeLogger = {
  info: () => undefined,
  warn: () => undefined,
};
