import { describe, expect, it } from 'vitest';
import { forgotten, REMEMBER_MS, rememberedInfo, type RememberedPhone } from '../../../src/platforms/android/remembered.js';

// The rule that keeps an identified network phone in reports (issue 34, finding 3), pure.

const phone: RememberedPhone = {
  udid: 'KICKED01',
  last: {
    udid: 'KICKED01',
    serialNumber: 'KICKED01',
    state: 'device',
    status: 'AVAILABLE',
    modelName: 'Pixel 8 Pro',
    platformName: 'ANDROID',
    isAndroid: true,
    isIos: false,
  },
  wallAt: Date.parse('2026-11-24T06:00:00Z'),
  at: 1_000,
};

describe('a remembered network phone', () => {
  it('is kept while it is listed or the agent connects its address, for an hour without an answer', () => {
    expect(forgotten(phone, 1_000 + REMEMBER_MS - 1, { listed: true, keptConnected: false })).toBeUndefined();
    expect(forgotten(phone, 1_000 + REMEMBER_MS - 1, { listed: false, keptConnected: true })).toBeUndefined();
    expect(forgotten(phone, 1_000 + REMEMBER_MS, { listed: true, keptConnected: true })).toBe('it has not answered for 60 min');
    // Off adb's list and not one the agent connects: someone disconnected it, an unplug.
    expect(forgotten(phone, 2_000, { listed: false, keptConnected: false })).toMatch(/no longer lists its address/);
  });

  it('is reported with its last inventory, unavailable, naming the kick or its network link, and what adb says now', () => {
    const kicked = rememberedInfo(phone, {
      serial: '10.0.0.5:5555',
      state: 'device',
      failure: 'shell: no answer within 2 s',
      cut: { atWall: Date.parse('2026-11-24T06:01:00Z'), what: 'recovery kicked its adb transport' },
    });
    expect(kicked).toMatchObject({ udid: 'KICKED01', modelName: 'Pixel 8 Pro', status: 'UNAVAILABLE', state: 'device' });
    expect(kicked.message).toBe(
      'reported with its last inventory, of 2026-11-24T06:00:00.000Z: recovery kicked its adb transport at 2026-11-24T06:01:00.000Z (adb -s 10.0.0.5:5555 reconnect), ' +
        'which drops its network link (adb over TCP to 10.0.0.5:5555); adb lists the address as device again, but its inventory fails (shell: no answer within 2 s), ' +
        'so it has not said who it is since. It stays reported until it answers, or for 60 min without an answer',
    );
    const dropped = rememberedInfo(phone, { serial: '10.0.0.5:5555', state: undefined });
    expect(dropped).toMatchObject({ status: 'UNAVAILABLE', state: 'offline' });
    expect(dropped.message).toMatch(
      /: its network link \(adb over TCP to 10\.0\.0\.5:5555\) dropped; adb does not list the address now; the agent keeps connecting it\./,
    );
  });
});
