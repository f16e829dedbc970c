import type { ConfigWarning } from './environment.js';

/** A setting is missing or wrong; the message names the setting. Exit code 2. */
export class ConfigError extends Error {
  override readonly name: string = 'ConfigError';
  constructor(
    readonly key: string,
    detail: string,
  ) {
    super(`${key}: ${detail}`);
  }

  /** Each problem on its own: this one, or every one a ConfigErrors gathered. */
  get problems(): readonly ConfigError[] {
    return [this];
  }
}

/** Several settings wrong at once, all reported in one run (one restart to fix them), with the warnings gathered on the way. */
export class ConfigErrors extends ConfigError {
  override readonly name = 'ConfigErrors';
  constructor(
    readonly all: readonly ConfigError[],
    readonly warnings: readonly ConfigWarning[] = [],
  ) {
    super(all[0]?.key ?? 'configuration', 'invalid');
    this.message = all.map((e) => e.message).join('\n');
  }

  override get problems(): readonly ConfigError[] {
    return this.all.flatMap((e) => e.problems);
  }
}

/** Runs each check and throws every ConfigError they raised, together, with the warnings any of them carried; other errors pass through. */
export function gatherConfigErrors(checks: ReadonlyArray<() => void>) {
  const errors: ConfigError[] = [];
  const warnings: ConfigWarning[] = [];
  for (const check of checks) {
    onConfigError(check, (err) => {
      errors.push(...err.problems);
      if (err instanceof ConfigErrors) warnings.push(...err.warnings);
    });
  }
  const [only] = errors;
  if (only && errors.length === 1 && !warnings.length) throw only;
  if (errors.length) throw new ConfigErrors(errors, warnings);
}

/** What fn returns; a ConfigError it throws is handed to `failed`, whose answer is returned instead. Other errors pass through. */
export function onConfigError<T, F>(fn: () => T, failed: (error: ConfigError) => F) {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return failed(err);
  }
}
