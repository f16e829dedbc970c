import type { AdbClient } from './adb/client.js';
import type { SettingsNamespace, SettingsWriter } from '../../devices/control.js';
import type { Platform } from '../../devices/record.js';
import { parseSettingOrUnset, parseWriteRefusal } from './inventory/parsers/settings.js';

/**
 * The developer toggle each maker's build asks for before adb's shell may
 * write settings, by the names the phones show (the threads in
 * test/platforms/android/inventory/parsers/fixtures/SOURCES.md, settings-put/).
 */
const TOGGLES: ReadonlyArray<{ makers: RegExp; enable: string }> = [
  {
    makers: /^(oneplus|oppo|realme)$/i,
    enable: 'Developer options > Disable permission monitoring on, then USB debugging off and on again',
  },
  {
    makers: /^(xiaomi|redmi|poco)$/i,
    enable: 'Developer options > USB debugging (Security settings) on (it asks for a SIM and a Mi account), then restart the phone',
  },
];

/** The refusal of a write and the toggle for the phone's maker; a maker not known here gets both known toggles named. */
export function writeRefusal(printed: string, maker: string | undefined) {
  const said = parseWriteRefusal(printed);
  if (said === undefined) return undefined;
  const known = maker === undefined ? undefined : TOGGLES.find((t) => t.makers.test(maker.trim()));
  return {
    said,
    enable:
      known?.enable ??
      "the maker's developer toggle that lets adb change settings (OnePlus, OPPO, realme: Developer options > Disable permission monitoring; Xiaomi: Developer options > USB debugging (Security settings))",
  };
}

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
  readonly refusal = writeRefusal;

  constructor(private readonly adb: Pick<AdbClient, 'reconnectOffline' | 'reconnect' | 'connect' | 'shell'>) {}

  reconnectOffline() {
    return this.adb.reconnectOffline();
  }

  reconnect(serial: string) {
    return this.adb.reconnect(serial);
  }

  connect(address: string) {
    return this.adb.connect(address);
  }

  /** A global setting as the phone prints it, `null` when unset, undefined when the answer is no value; throws when adb fails. */
  getGlobal(serial: string, key: string) {
    return this.getSetting(serial, 'global', key);
  }

  /** Writes a global setting; what `settings put` printed (nothing, on success). */
  putGlobal(serial: string, key: string, value: string) {
    return this.putSetting(serial, 'global', key, value);
  }

  /** A setting of the namespace as the phone prints it, `null` when unset, undefined when the answer is no value; throws when adb fails. */
  async getSetting(serial: string, namespace: SettingsNamespace, key: string) {
    return parseSettingOrUnset(await this.settings(serial, `get ${namespace} ${key}`));
  }

  /** Writes a setting of the namespace; what `settings put` printed (nothing, on success). */
  async putSetting(serial: string, namespace: SettingsNamespace, key: string, value: string) {
    return (await this.settings(serial, `put ${namespace} ${key} ${value}`)).trim();
  }

  private async settings(serial: string, args: string) {
    return (await this.adb.shell(serial, `settings ${args}`, { timeoutMs: SETTINGS_MS, maxBytes: SETTINGS_BYTES })).output;
  }
}
