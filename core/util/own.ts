/**
 * Reading and writing a key of a plain object as its own property, for keys that come from data
 * (a site file, a request): `record[key] = value` with the key `__proto__` would set the
 * object's prototype instead (and reading it would reach Object.prototype).
 */
export function ownValue(record: object, key: string): unknown {
  return Object.hasOwn(record, key) ? (record as Record<string, unknown>)[key] : undefined;
}

export function setOwn(record: object, key: string, value: unknown): void {
  Object.defineProperty(record, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}
