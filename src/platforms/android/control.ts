import type { AdbClient } from './adb/client.js';
import type { PhoneControl } from '../../devices/control.js';
import type { Platform } from '../../devices/record.js';
import { parseSettingOrUnset } from './inventory/parsers/settings.js';

/** One `settings` call: the framework answers in well under a second, a loaded phone in a few. */
const SETTINGS_MS = 10_000;
/** What a settings call may print: one value, or a stack trace. */
const SETTINGS_BYTES = 64 * 1024;

/**
 * What the agent's actions may do to an Android phone: the platform's one
 * door for them, so that recovery and Samsung protection (src/actions/)
 * never hold the adb client. Each call is one adb request with the client's
 * deadline; the shapes are the actions' own (RecoveryAdb, GlobalSettings).
 */
export class AndroidControl implements PhoneControl {
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
  async getGlobal(serial: string, key: string): Promise<string | undefined> {
    const { output } = await this.adb.shell(serial, `settings get global ${key}`, { timeoutMs: SETTINGS_MS, maxBytes: SETTINGS_BYTES });
    return parseSettingOrUnset(output);
  }

  /** Writes a global setting; what `settings put` printed (nothing, on success). */
  async putGlobal(serial: string, key: string, value: string): Promise<string> {
    const { output } = await this.adb.shell(serial, `settings put global ${key} ${value}`, { timeoutMs: SETTINGS_MS, maxBytes: SETTINGS_BYTES });
    return output.trim();
  }
}
