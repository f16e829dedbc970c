import type { AdbClient } from './adb/client.js';
import type { SettingsNamespace, SettingsWriter } from '../../devices/control.js';
import type { Platform } from '../../devices/record.js';
import { parseSettingOrUnset } from './inventory/parsers/settings.js';

/** One `settings` call: the framework answers in well under a second, a loaded phone in a few. */
const SETTINGS_MS = 10_000;
/** What a settings call may print: one value, or a stack trace. */
const SETTINGS_BYTES = 64 * 1024;

/**
 * What the agent's actions may do to an Android phone: the platform's one door for them, so that no action holds the
 * adb client. Each call is one adb request under the client's deadline.
 */
export class AndroidControl implements SettingsWriter {
  readonly platform: Platform = 'android';

  constructor(private readonly adb: Pick<AdbClient, 'reconnectOffline' | 'reconnect' | 'connect' | 'shell'>) {}

  reconnectOffline(): Promise<string> {
    return this.adb.reconnectOffline();
  }

  reconnect(serial: string): Promise<string> {
    return this.adb.reconnect(serial);
  }

  connect(address: string): Promise<string> {
    return this.adb.connect(address);
  }

  /** A global setting as the phone prints it, `null` when unset, undefined when the answer is no value; throws when adb fails. */
  getGlobal(serial: string, key: string): Promise<string | undefined> {
    return this.getSetting(serial, 'global', key);
  }

  /** Writes a global setting; what `settings put` printed (nothing, on success). */
  putGlobal(serial: string, key: string, value: string): Promise<string> {
    return this.putSetting(serial, 'global', key, value);
  }

  /** A setting of the namespace as the phone prints it, `null` when unset, undefined when the answer is no value; throws when adb fails. */
  async getSetting(serial: string, namespace: SettingsNamespace, key: string): Promise<string | undefined> {
    const { output } = await this.adb.shell(serial, `settings get ${namespace} ${key}`, { timeoutMs: SETTINGS_MS, maxBytes: SETTINGS_BYTES });
    return parseSettingOrUnset(output);
  }

  /** Writes a setting of the namespace; what `settings put` printed (nothing, on success). */
  async putSetting(serial: string, namespace: SettingsNamespace, key: string, value: string): Promise<string> {
    const { output } = await this.adb.shell(serial, `settings put ${namespace} ${key} ${value}`, { timeoutMs: SETTINGS_MS, maxBytes: SETTINGS_BYTES });
    return output.trim();
  }
}
