import pino, { type DestinationStream, type Logger } from "pino";
import type { Settings } from "./settings.ts";

/**
 * The logger of the settings (JSON lines on stdout, or on `destination`), with credentials
 * redacted wherever they appear, and the body an error may carry (body-parser's, an HTTP
 * client's), since logs never hold bodies.
 */
export function createLogger(
  settings: Readonly<Settings>,
  destination?: DestinationStream,
): Logger {
  return pino(
    {
      level: settings.logLevel,
      redact: {
        paths: [
          "*.authorization",
          "*.password",
          "*.value",
          "*.secret",
          "*.connectionString",
          "err.body",
        ],
        censor: "[redacted]",
      },
    },
    destination,
  );
}
