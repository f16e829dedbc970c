import { describe, expect, it } from 'vitest';
import { PROTECTION_PROBLEMS, PROTECTION_WRITES } from '../../../src/features/samsung/protection.js';
import { PROTECTION } from '../../../src/features/samsung/state.js';
import type { BookingStatusSource } from '../../../src/cloud/booking-status.js';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { loadSettings } from '../../../src/config/load.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { BookingGate } from '../../../src/booking/gate.js';
import { samsungFeature } from '../../../src/features/samsung/feature.js';
import { actionBed, featureContext } from '../../support/feature-bed.js';
import { AndroidControl } from '../../../src/platforms/android/control.js';
import { AgentStats } from '../../../src/stats/agent-stats.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { captureLogger } from '../../log/capture.js';

// The samsung way's carrier on virtual time, on the real registry, booking
// gate and policy: only the phone's shell and the cloud's answers are played
// by the test. What takes minutes (the cap check) is shown here; the e2e
// shows the writes through the real adb server.

const SERIAL = 'R58SAMSUNG';
const UDID = 'udid-samsung';
const MINUTE = 60_000;

function bed(brand = 'samsung') {
  const time = new VirtualTime();
  const clock = time.clock({ seed: 3 });
  const registry = new DeviceRegistry();
  const settings = loadSettings({ env: {}, overrides: new Map<string, unknown>([['charge.ways', [`${UDID}=samsung`]]]) });
  const phone = { value: '0', ignoresWrites: false, percent: 50, status: 'CHARGING', commands: [] as string[] };
  // Android's own door for the actions, over a shell the test plays: the real command lines and parser.
  const unused = () => Promise.reject(new Error('not used by this way'));
  const phones = new AndroidControl({
    reconnectOffline: unused,
    reconnect: unused,
    connect: unused,
    shell: (_serial, command) => {
      phone.commands.push(command);
      const put = /^settings put global protect_battery (\S+)$/.exec(command);
      if (put && !phone.ignoresWrites) phone.value = put[1]!;
      const output = put ? '' : `${phone.value}\n`;
      return Promise.resolve({ output, bytes: output.length, truncated: false });
    },
  });
  const booking: BookingStatusSource = { ask: () => Promise.resolve({ booked: false }) };
  const inventory = () => {
    const info: DeviceInfo = {
      udid: UDID,
      serialNumber: SERIAL,
      state: 'device',
      status: 'AVAILABLE',
      platformName: 'Android',
      isAndroid: true,
      isIos: false,
      brandName: brand,
      battery: { percentage: String(phone.percent), status: phone.status },
    };
    registry.sync('android', new Map([[SERIAL, 'device']]));
    registry.readings.answered(`android/${SERIAL}`, info, clock.wall(), clock.monotonic());
  };
  const stats = new AgentStats();
  const log = captureLogger('info');
  const protection = actionBed(samsungFeature, featureContext({ phones, registry, settings, stats, logger: log.logger, clock }), {
    gate: new BookingGate({ cacheMs: 10_000, maxRequestsPerMinute: 4 }, clock),
    booking,
  });
  /** Lets virtual time pass a tick at a time, with a fresh inventory and the work of each tick let through. */
  const pass = async (ms: number) => {
    for (let left = ms; left > 0; left -= 5_000) {
      inventory();
      time.advance(Math.min(5_000, left));
      await protection.settled();
    }
  };
  return { registry, phone, stats, log, protection, inventory, pass };
}

describe('the samsung way on virtual time', () => {
  it('takes only a number or null for the setting: any other line is unreadable, never written over, never quoted to the cloud', async () => {
    for (const odd of ['x'.repeat(5_000), 'Enabled', '0 1', 'WARNING: linker: unused DT entry', '\u0000']) {
      const { registry, phone, protection, inventory, pass } = bed();
      phone.value = odd;
      inventory();
      protection.start();
      await pass(5 * MINUTE);
      expect(
        phone.commands.filter((c) => c.startsWith('settings put')),
        JSON.stringify(odd.slice(0, 40)),
      ).toEqual([]);
      const entry = registry.facet(PROTECTION).get(`android/${SERIAL}`);
      expect(entry?.state).toBe('unreadable');
      expect(entry?.message ?? '').not.toContain(odd);
      await protection.stop();
    }
  });

  it('flags a phone that reads as protected yet charges past the cap for over 30 minutes, once, and clears it under the mark', async () => {
    const { registry, phone, stats, log, protection, inventory, pass } = bed();
    inventory();
    protection.start();
    await pass(10_000);
    expect(phone.value).toBe('1');
    expect(registry.facet(PROTECTION).get(`android/${SERIAL}`)?.state).toBe('on');

    // Charging at 95 % with protection on: a One UI that keeps the value and ignores it.
    phone.percent = 95;
    await pass(29 * MINUTE);
    expect(registry.facet(PROTECTION).get(`android/${SERIAL}`)?.state).toBe('on');
    await pass(2 * MINUTE);
    const entry = registry.facet(PROTECTION).get(`android/${SERIAL}`)!;
    expect(entry.state).toBe('not-honoured');
    expect(entry.message).toMatch(
      /^Samsung battery protection is set but not honoured \(protect_battery reads 1, yet the battery charged at 95 %, past the 85 % cap/,
    );
    await pass(20 * MINUTE);
    const said = log.lines().filter((l) => /not honoured/.test(String(l.msg)));
    expect(said).toHaveLength(1);
    expect(stats.counter(PROTECTION_PROBLEMS).get('not_honoured')).toBe(1);

    // Under the mark: the flag is over.
    phone.percent = 80;
    await pass(10_000);
    expect(registry.facet(PROTECTION).get(`android/${SERIAL}`)).toMatchObject({ state: 'on', message: undefined });
    await protection.stop();
  });

  it('writes a phone that drops the write once an hour at most, and says so once', async () => {
    const { registry, phone, stats, log, protection, inventory, pass } = bed();
    phone.ignoresWrites = true;
    inventory();
    protection.start();
    await pass(3 * 60 * MINUTE + 10_000);
    const puts = phone.commands.filter((c) => c.startsWith('settings put'));
    // At 0, 1 h, 2 h and 3 h (the cooldown counted from each write).
    expect(puts).toHaveLength(4);
    expect(registry.facet(PROTECTION).get(`android/${SERIAL}`)?.state).toBe('not-taken');
    expect(log.lines().filter((l) => /did not take/.test(String(l.msg)))).toHaveLength(1);
    expect(stats.counter(PROTECTION_WRITES).get('not_taken')).toBe(4);
    expect(stats.counter(PROTECTION_PROBLEMS).get('not_taken')).toBe(1);
    await protection.stop();
  });

  it('leaves a phone of another maker alone, and says so once', async () => {
    const { registry, phone, log, protection, inventory, pass } = bed('google');
    inventory();
    protection.start();
    await pass(30 * MINUTE);
    expect(phone.commands).toEqual([]);
    expect(registry.facet(PROTECTION).get(`android/${SERIAL}`)).toMatchObject({
      state: 'not-samsung',
      message: expect.stringContaining("this phone's brand is google"),
    });
    expect(log.lines().filter((l) => /brand is google/.test(String(l.msg)))).toHaveLength(1);
    await protection.stop();
  });
});
