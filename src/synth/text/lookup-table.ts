/**
 * A frozen table without a prototype, for looking up values that come from a request: `table.constructor`,
 * `"toString" in table` and `table.__proto__` find nothing, as any other unknown name, instead of reaching
 * Object.prototype.
 */
export function lookupTable<T>(entries: Readonly<Record<string, T>>): Readonly<Record<string, T | undefined>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}
