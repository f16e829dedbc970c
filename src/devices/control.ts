import type { Platform } from './record.js';

/** What a platform hands the actions to reach its phones: it carries the platform, so actions never name one. */
export interface PhoneControl {
  readonly platform: Platform;
}

/** The namespaces of the phone's settings a writer reaches. */
export type SettingsNamespace = 'global' | 'system';

/** A platform whose phones' settings the agent can read and write, one key at a time (readiness's fix selects by it). */
export interface SettingsWriter extends PhoneControl {
  /** The value as the phone prints it, `null` when unset, undefined when the answer is no value; throws when the phone cannot be asked. */
  getSetting(serial: string, namespace: SettingsNamespace, key: string): Promise<string | undefined>;
  /** What the write printed (nothing, on success); throws when the phone cannot be asked. */
  putSetting(serial: string, namespace: SettingsNamespace, key: string, value: string): Promise<string>;
}
