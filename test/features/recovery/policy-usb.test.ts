import type { BackoffIntent } from '../../../src/features/recovery/connects.js';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LOST_TOGETHER_MS, RecoveryPolicy, defaultRecoverySettings, type ListedDevice, type RecoveryAction } from '../../../src/features/recovery/policy.js';
import type { UsbBlame, UsbSeen } from '../../../src/devices/usb-evidence.js';

// Recovery's steps from the USB layer's evidence, on virtual time: the
// evidence is a value on each device (what UsbEvidence.seen answered), the
// policy is ticked as Recovery ticks it.

const settings = { ...defaultRecoverySettings, kickAfterFailures: 2, kickCooldownMs: 60_000, offlineCooldownMs: 10_000, powerCycle: true };
const HUBS = ['1-1', '1-2', '2-1'];

const gone = (port: string, at: number, blame?: UsbBlame): UsbSeen => ({
  enumerated: false,
  port,
  hub: port.slice(0, port.lastIndexOf('.')),
  last: 'disconnected',
  at,
  ...(blame && { blame }),
});

/** A phone at one look: adb's state, its failures, and what the USB layer says of it. */
const phoneAt = fc.record({
  state: fc.constantFrom('device', 'offline'),
  failures: fc.nat({ max: 8 }),
  usb: fc.oneof(fc.constant(undefined), fc.constant('enumerated' as const), fc.record({ agoMs: fc.nat({ max: 30 * 60_000 }), blamed: fc.boolean() })),
  hubPort: fc.boolean(),
});

type PhoneAt = typeof phoneAt extends fc.Arbitrary<infer T> ? T : never;

function listed(i: number, p: PhoneAt, now: number, wallNow: number): ListedDevice {
  const hub = HUBS[i % HUBS.length]!;
  const port = `${hub}.${(i % 4) + 1}`;
  const serial = `P${i}`;
  let usb: UsbSeen | undefined;
  if (p.usb === 'enumerated') usb = { enumerated: true, port };
  else if (p.usb !== undefined) {
    const { agoMs, blamed } = p.usb;
    usb = gone(port, wallNow - agoMs, blamed ? { layer: 'hub', subject: hub, evidence: `hub ${hub}: all its ports failed` } : undefined);
  }
  return {
    serial,
    key: `android/${serial}`,
    state: p.state,
    failures: p.failures,
    failingSince: now - 60_000,
    ...(p.hubPort && { hubPort: { hub, port: (i % 4) + 1 } }),
    ...(usb && { usb }),
  };
}

const adbTargets = (a: RecoveryAction | BackoffIntent): string[] => (a.kind === 'kick' ? [a.serial] : a.kind === 'reconnect-offline' ? a.serials : []);

describe('recovery on the USB layer evidence', () => {
  it('never kicks or reconnects through adb a phone the evidence says is not enumerated, whatever else holds', () => {
    fc.assert(
      fc.property(fc.array(fc.array(phoneAt, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 40 }), fc.nat({ max: 120_000 }), (looks, stepMs) => {
        const policy = new RecoveryPolicy(settings);
        let now = 1_000_000;
        const wall = Date.UTC(2026, 0, 5);
        for (const look of looks) {
          now += stepMs + 1;
          const devices = look.map((p, i) => listed(i, p, now, wall + now));
          const unseen = new Set(devices.filter((d) => d.usb?.enumerated === false).map((d) => d.serial));
          for (const a of policy.tick(devices, now)) {
            for (const serial of adbTargets(a)) expect(unseen.has(serial)).toBe(false);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('names a hub whose phones are off USB together at every look of the episode and at no other (recovery says it once), and kicks none of them', () => {
    // Each look: how many of the hub's four phones are off USB (dropped together) and their failures.
    fc.assert(
      fc.property(fc.array(fc.record({ lost: fc.nat({ max: 4 }), failures: fc.nat({ max: 6 }) }), { minLength: 1, maxLength: 60 }), (looks) => {
        const policy = new RecoveryPolicy(settings);
        let now = 1_000_000;
        const wall = Date.UTC(2026, 0, 5);
        for (const { lost, failures } of looks) {
          now += 5_000;
          const together = lost >= 2;
          const devices: ListedDevice[] = [1, 2, 3, 4].map((n) => ({
            serial: `H${n}`,
            key: `android/H${n}`,
            state: 'device',
            failures,
            failingSince: now - 60_000,
            hubPort: { hub: '1-1.4', port: n },
            usb: n <= lost ? gone(`1-1.4.${n}`, wall + now - n * 1_000) : { enumerated: true, port: `1-1.4.${n}` },
          }));
          const actions = policy.tick(devices, now);
          expect(actions.filter((a) => a.kind === 'hub-lost' && a.hub === '1-1.4')).toHaveLength(together ? 1 : 0);
          if (together) {
            // The hub's phones: no kick, no cycle one by one, each noted quietly (the hub's line is theirs).
            const own = actions.filter((a) => a.kind !== 'hub-lost' && 'serial' in a && Number(a.serial.slice(1)) <= lost);
            expect(own.every((a) => a.kind === 'needs-person' && a.quiet === true)).toBe(true);
            expect(own).toHaveLength(lost);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('takes phones of one hub dropped far apart as their own, and a hub the USB layer blames as the hub even for one phone', () => {
    const policy = new RecoveryPolicy({ ...settings, powerCycle: false });
    const wall = Date.UTC(2026, 0, 5);
    const now = 1_000_000;
    const apart: ListedDevice[] = [1, 2].map((n) => ({
      serial: `A${n}`,
      state: 'device',
      failures: 3,
      usb: gone(`1-1.4.${n}`, wall + n * (LOST_TOGETHER_MS + 1)),
    }));
    const actions = policy.tick(apart, now);
    expect(actions.map((a) => a.kind)).toEqual(['needs-person', 'needs-person']);
    expect(actions[0]).toMatchObject({
      reason: expect.stringContaining("not enumerated on USB (the kernel's last word on port 1-1.4.1 is disconnected)") as string,
    });
    expect(actions[0]).not.toHaveProperty('quiet');
    const blamed = new RecoveryPolicy(settings).tick(
      [{ serial: 'B1', state: 'offline', usb: gone('2-1.3', wall, { layer: 'hub', subject: '2-1', evidence: 'hub 2-1: all 3 of its ports failed' }) }],
      now,
    );
    expect(blamed[0]).toMatchObject({ kind: 'hub-lost', hub: '2-1', serials: ['B1'] });
    expect(blamed[0]).toMatchObject({ reason: expect.stringContaining('hub 2-1: all 3 of its ports failed') as string });
  });

  it("power-cycles a lone phone's port instead of kicking it, naming its USB port for the check after", () => {
    const policy = new RecoveryPolicy(settings);
    const actions = policy.tick([{ serial: 'C1', state: 'device', failures: 5, hubPort: { hub: '1-1.4', port: 2 }, usb: gone('1-1.4.2', 0) }], 1_000_000);
    expect(actions).toEqual([expect.objectContaining({ kind: 'power-cycle', hub: '1-1.4', port: 2, usbPort: '1-1.4.2' })]);
  });
});
