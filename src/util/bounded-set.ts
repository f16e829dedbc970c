/**
 * A set that keeps at most `max` entries, forgetting the oldest first: memory of what was already said that neither
 * grows with its input nor, as a set cleared when full did, forgets everything at once (and so says it all again).
 */
export class BoundedSet<T> {
  private readonly entries = new Set<T>();

  constructor(private readonly max: number) {}

  has(value: T) {
    return this.entries.has(value);
  }

  add(value: T) {
    this.entries.delete(value);
    this.entries.add(value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.values().next().value as T);
  }

  get size() {
    return this.entries.size;
  }
}

/** Sets a key of a map kept to at most `max` keys: a new key past it forgets the one set first. */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number) {
  if (map.size >= max && !map.has(key)) map.delete(map.keys().next().value!);
  map.set(key, value);
}
