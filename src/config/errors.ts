/** A setting is missing or wrong; the message names the setting. Exit code 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly key: string,
    detail: string,
  ) {
    super(`${key}: ${detail}`);
  }
}
