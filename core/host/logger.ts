/**
 * The logger a plugin is handed, ours rather than pino's, so that the public types do not follow
 * pino's releases and a plugin's tests can pass any object with these four methods. The service's
 * pino logger satisfies it.
 */
export interface Logger {
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}

/** A message, or an object of fields (an `err` is serialized with its stack) and a message. */
export interface LogMethod {
  (fields: object, message?: string): void;
  (message: string): void;
}

/** What the host needs of the logger it is given: one child per plugin, named by its fields. */
export interface HostLogger extends Logger {
  child(bindings: Record<string, unknown>): Logger;
}
