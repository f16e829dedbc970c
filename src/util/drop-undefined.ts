// JSON drops undefined anyway; dropping it before keeps test expectations,
// logs and tables free of keys that carry nothing.

/** Deletes the keys whose value is undefined, in place; returns the same object. */
export function dropUndefined<T extends object>(value: T) {
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] === undefined) delete value[key];
  }
  return value;
}
