// One setting as the schema declares it: its type, bounds, check and words, read by validation, the variables, the help
// and the configuration reference.

export type FieldType = 'string' | 'integer' | 'boolean' | 'string[]';

export interface Field {
  readonly type: FieldType;
  optional?: boolean;
  secret?: boolean;
  min?: number;
  max?: number;
  oneOf?: readonly string[];
  /** Returns a problem description, or undefined when the value is fine. */
  check?: (value: never) => string | undefined;
  /** Conventional variables (HTTPS_PROXY, ...) giving the value when no file or DEVICE_AGENT_* does; an empty file value means none. */
  envDefault?: readonly string[];
  /** The form `check` accepts, said for people (help, the reference). */
  format?: string;
  /** A feature's setting's default (the core's are in config/default.json, which may set a feature's too: the package's). */
  default?: string | number | boolean | readonly string[];
  /** What an unset or empty value means, where there is no default. */
  unset?: string;
  /**
   * The key this setting had before it moved (to its feature's fragment):
   * the old key in a settings file, and its variable, still read, with a
   * warning at every start, while operators rename it; the new one wins.
   */
  formerKey?: string;
  help: string;
}
