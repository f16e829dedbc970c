// Parts two features share without importing each other: the one that offers a part declares its key below both (as a
// facet's key), and whoever reads it reaches it through the features' context by that key, so that the wiring names
// neither.

/** A shared part's key, declared once by its owner. */
export interface SharedKey<T> {
  readonly name: string;
  /** Carries T only for the type checker. */
  readonly _type?: (value: T) => void;
}

export function sharedKey<T>(name: string): SharedKey<T> {
  return { name };
}

/** The parts of one build of the features, by key. */
export class SharedParts {
  private readonly parts = new Map<string, unknown>();

  /** The part under this key: made by the first to ask, the same for everyone after. */
  of<T>(key: SharedKey<T>, make: () => T) {
    if (!this.parts.has(key.name)) this.parts.set(key.name, make());
    return this.parts.get(key.name) as T;
  }

  /** The part under this key, when its owner offered it (`of`); undefined when it is not built. */
  get<T>(key: SharedKey<T>) {
    return this.parts.get(key.name) as T | undefined;
  }
}
