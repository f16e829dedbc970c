import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { loadSettings } from '../../src/config/load.js';
import { checkHiddenDevices } from '../../src/config/hidden-devices.js';

// A mistyped DEVICE_AGENT_HIDDEN_DEVICES hid nothing and said nothing (issue 61): an entry no udid can be is
// refused as every other bad setting is, naming the setting, the entry and the separator to use.

function refusal(env: Record<string, string>): string {
  try {
    loadSettings({ env });
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('the settings were taken');
}

describe('hiddenDevices', () => {
  it('refuses a list separated by spaces or semicolons, naming the setting and the entry', () => {
    expect(refusal({ DEVICE_AGENT_HIDDEN_DEVICES: 'R58M12AB 00008030-001A2B3C4D5E6F7A' })).toBe(
      'hiddenDevices (DEVICE_AGENT_HIDDEN_DEVICES): "R58M12AB 00008030-001A2B3C4D5E6F7A" holds a space, which no udid does: separate the udids with commas (e.g. R58M12AB,00008030-001A2B3C4D5E6F7A)',
    );
    expect(refusal({ DEVICE_AGENT_HIDDEN_DEVICES: 'R58M12AB;R58M12AC' })).toMatch(/"R58M12AB;R58M12AC" holds a semicolon, which no udid does/);
    expect(refusal({ DEVICE_AGENT_HIDDEN_DEVICES: 'R58M12AB,R58M\tAC' })).toMatch(/"R58M\\tAC" holds a blank/);
  });

  it('refuses a list written as code: quoted entries, a JSON array in the variable', () => {
    for (const value of ['"R58M12AB","R58M12AC"', '["R58M12AB","R58M12AC"]', "'R58M12AB'"]) {
      expect(refusal({ DEVICE_AGENT_HIDDEN_DEVICES: value }), value).toMatch(
        /is quoted, which no udid is: write the udids bare, separated by commas, without quotes or brackets/,
      );
    }
  });

  it('takes every udid a device can give: serials, iPhone udids, a network phone address (IPv6 in brackets)', () => {
    const udids = ['R58M12AB', '00008030-001A2B3C4D5E6F7A', '127.0.0.1:5555', '[fe80::1]:5555', 'emulator-5554', 'ZY22G8_x.1'];
    expect(checkHiddenDevices(udids)).toBeUndefined();
    expect(loadSettings({ env: { DEVICE_AGENT_HIDDEN_DEVICES: udids.join(', ') } }).hiddenDevices).toEqual(udids);
  });
});
