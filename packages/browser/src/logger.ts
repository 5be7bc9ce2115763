/** The part of a pino logger the renderer uses; pass the worker's logger, or nothing for silence. */
export interface RendererLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export const silentLogger: RendererLogger = {
  info: () => undefined,
  warn: () => undefined,
};

export const errorText = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);
