import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STATUS_UNPLUGGED, type DeviceInfo } from '../../src/cloud/types.js';
import { PresenceLedger, type OwedDevice, type PresenceEntry, type PresenceReason } from '../../src/devices/presence.js';
import { UnpluggedLedger } from '../../src/report/unplugged.js';
import { androidPhone as phone } from '../support/devices.js';

// The rule of docs/design/architecture.md ("Presence is never silently
// lost"), over random lives of a few phones: plugged, answering, unplugged,
// paused by charge control (a bound on the clock, or resumed), a network
// phone whose link drops (remembered for an hour from its last answer), a
// source that fails and answers again, a phone back on a new connection
// whose inventory has not answered yet (its earlier one owed until it does),
// a USB phone whose debugging goes off and on (off adb, on its port: the USB
// layer owes every phone it has seen listed that sysfs shows on a port),
// time passing, also between the
// source's word and the report's ask. The writers owe the ledger as the
// agent's do (a failed source: src/report/execute.ts; a pause: a bound on
// the clock; the Android source's remembered network phones: its whole word
// after each answer, ended by a failure, through execute.ts), the report
// asks it once, and the UNPLUGGED ledger composes.
// At every report each device once reported is either in the body with an
// inventory and a reason, or sent UNPLUGGED exactly once, or waiting while a
// source that did not answer says nothing is gone; never carried past its bound.

const PHONES = ['P0', 'P1', 'P2', 'N0'];
/** N0 is reached over TCP: its link can drop, and the source remembers it (src/platforms/android/remembered.ts). */
const NETWORK = 'N0';
/** remembered.ts's hour, shortened so that random ticks reach it. */
const REMEMBER_MS = 90_000;
const droppedOf = (udid: string): PresenceReason => ({ kind: 'network-dropped', scope: `android/${udid}` });
const SOURCE: PresenceReason = { kind: 'source-failed', scope: 'android' };
const pausedOf = (udid: string): PresenceReason => ({ kind: 'charge-paused', scope: `android/${udid}` });
const backOf = (udid: string): PresenceReason => ({ kind: 'unanswered', scope: `android/${udid}` });
const USB: PresenceReason = { kind: 'off-source', scope: 'usb' };

type Step =
  | { op: 'plug' | 'unplug' | 'resume' | 'reconnect' | 'debug'; phone: number }
  | { op: 'pause'; phone: number; ms: number }
  | { op: 'drop' }
  | { op: 'fail' | 'answer' }
  | { op: 'report'; lag: number }
  | { op: 'tick'; ms: number };

const phoneIx = fc.integer({ min: 0, max: PHONES.length - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constantFrom('plug' as const, 'unplug' as const, 'resume' as const, 'reconnect' as const), phone: phoneIx }),
  // The USB phones (P0 to P2) only: the network phone has no port.
  { weight: 2, arbitrary: fc.record({ op: fc.constant('debug' as const), phone: fc.integer({ min: 0, max: 2 }) }) },
  fc.record({ op: fc.constant('pause' as const), phone: phoneIx, ms: fc.integer({ min: 1, max: 60_000 }) }),
  fc.record({ op: fc.constantFrom('fail' as const, 'answer' as const) }),
  { weight: 2, arbitrary: fc.record({ op: fc.constant('drop' as const) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('report' as const), lag: fc.integer({ min: 0, max: 5_000 }) }) },
  fc.record({ op: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 40_000 }) }),
);

interface Phone {
  plugged: boolean;
  /** The last inventory it answered, which a writer owes when it cannot answer. */
  last?: DeviceInfo;
  /** Monotonic ms its pause ends by; its port is off, so it is off its source. */
  pausedUntil?: number;
  /** The network phone's link dropped: off its source, remembered while `answeredAt` is within the hour. */
  dropped?: boolean;
  /** Monotonic ms it last answered (the network phone's memory). */
  answeredAt?: number;
  /** Back on a new connection, its inventory not answered yet: the source owes its earlier one. */
  back?: boolean;
  /** Its USB debugging is off: adb does not list it, its port still shows it. */
  debugOff?: boolean;
}

describe('presence ledger with the UNPLUGGED ledger: presence is never silently lost (issue 41)', () => {
  it('property: at every report a device once reported is carried with an inventory and a reason, or UNPLUGGED exactly once, never past its bound', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const presence = new PresenceLedger();
        const unplugged = new UnpluggedLedger();
        // The network phone and one USB phone start connected, so that a link has something to drop and a
        // debugging switch something to turn off in most runs.
        const phones = new Map<string, Phone>(PHONES.map((u) => [u, { plugged: u === NETWORK || u === 'P0' }]));
        /** Per udid: reported present since its last UNPLUGGED record, and whether that record went. */
        const told = new Map<string, { reported: boolean }>();
        let now = 0;
        let failing = false;
        const listed = (p: Phone) => p.plugged && p.pausedUntil === undefined && !p.dropped && !p.debugOff;
        /** On its USB port, as sysfs shows it: plugged, its port not switched off by a pause; the network phone has none. */
        const onPort = (u: string, p: Phone) => u !== NETWORK && p.plugged && p.pausedUntil === undefined;
        for (const s of [...steps, { op: 'answer' as const }, { op: 'tick' as const, ms: 120_000 }, { op: 'report' as const, lag: 0 }]) {
          const udid = 'phone' in s ? PHONES[s.phone]! : '';
          const p = phones.get(udid);
          switch (s.op) {
            case 'plug':
              // A dropped network phone back on its address answers again.
              p!.plugged = true;
              p!.dropped = false;
              break;
            case 'unplug':
              // For a dropped network phone: someone disconnected its address, and it is forgotten.
              p!.plugged = false;
              p!.debugOff = false;
              p!.dropped = false;
              p!.answeredAt = undefined;
              break;
            case 'debug':
              // Its debugging goes off (an update) or on again; its port keeps it throughout.
              if (PHONES[s.phone] !== NETWORK && p!.plugged) p!.debugOff = !p!.debugOff;
              break;
            case 'reconnect':
              // Its transport dropped and came back: the next report finds its inventory still running.
              if (listed(p!) && p!.last) p!.back = true;
              break;
            case 'drop': {
              const q = phones.get(NETWORK)!;
              if (listed(q) && q.answeredAt !== undefined) q.dropped = true;
              break;
            }
            case 'pause':
              // Charge control pauses a phone it has read, and owes it until the pause's bound.
              if (!listed(p!) || !p!.last) break;
              p!.pausedUntil = now + s.ms;
              presence.owe(pausedOf(udid), [{ udid, says: { status: 'UNAVAILABLE' }, why: 'charge paused' }], { until: p!.pausedUntil });
              break;
            case 'resume':
              if (p!.pausedUntil === undefined) break;
              p!.pausedUntil = undefined;
              presence.end(pausedOf(udid));
              break;
            case 'fail':
              failing = true;
              break;
            case 'answer':
              failing = false;
              break;
            case 'tick':
              now += s.ms;
              break;
            case 'report': {
              // The sources: an answering one lists its phones; a failed one owes their last inventories (execute.ts).
              // An answering source also owes its remembered network phone, within the hour from its last answer.
              const present: DeviceInfo[] = [];
              const owed: OwedDevice[] = [];
              const remembered: PresenceEntry[] = [];
              for (const [u, q] of phones) {
                if (u === NETWORK && q.dropped && !failing && q.answeredAt !== undefined) {
                  if (now - q.answeredAt < REMEMBER_MS)
                    remembered.push({
                      reason: droppedOf(u),
                      devices: [{ udid: u, says: { status: 'UNAVAILABLE' }, why: 'link dropped' }],
                      bound: { until: q.answeredAt + REMEMBER_MS },
                    });
                  else q.answeredAt = undefined;
                }
                if (!listed(q)) continue;
                if (failing) {
                  if (q.last) owed.push({ udid: u, notes: ['source failed'] });
                } else if (q.back) {
                  // Owed with its earlier inventory, not listed; it answers by the next report.
                  remembered.push({
                    reason: backOf(u),
                    devices: [{ udid: u, says: { status: 'UNAVAILABLE' }, why: 'back, not answered' }],
                    bound: { while: 'unanswered' },
                  });
                  q.back = false;
                } else {
                  // Each reading tells itself apart, so that a carried device shows which inventory it carries.
                  present.push((q.last = phone(u, { deviceName: `read at ${now}` })));
                  if (u === NETWORK) q.answeredAt = now;
                }
              }
              if (failing) presence.owe(SOURCE, owed, { while: 'the source fails' });
              else presence.end(SOURCE);
              presence.replace('android', ['network-dropped', 'unanswered'], remembered);
              // The USB layer, right before the ask: every phone it has seen listed (read once) that is on a port.
              presence.owe(
                USB,
                [...phones].flatMap(([u, q]) =>
                  q.last && onPort(u, q) ? [{ udid: u, says: { state: 'no device', status: 'UNAVAILABLE' }, why: 'off adb' }] : [],
                ),
                { while: 'on a port, off adb' },
              );
              // The other sources' time: the report asks the ledger a little after this source's word.
              now += s.lag;
              // The last inventories are the readings' (here each phone's own), never the ledger's.
              const { carried } = presence.report(present, now, (d) => phones.get(d.udid)?.last);
              const why = new Map(carried.map((c) => [c.info.udid, c.reason]));
              // As the reporter has it: a report is complete only when every source answered (src/report/reporter.ts).
              const complete = !failing;
              const body = unplugged.compose([...present, ...carried.map((c) => c.info)], complete, failing);
              unplugged.delivered(body, complete);
              for (const u of PHONES) {
                const sent = body.filter((d) => d.udid === u);
                expect(sent.length).toBeLessThanOrEqual(1);
                const d = sent[0];
                const q = phones.get(u)!;
                const was = told.get(u)?.reported ?? false;
                if (d && d.status !== STATUS_UNPLUGGED) {
                  // Reported: read now, or carried for a reason within its bound.
                  const reason = why.get(u);
                  if (!present.some((x) => x.udid === u)) {
                    expect(reason).toBeDefined();
                    // With its last inventory.
                    expect(d.deviceName).toBe(q.last!.deviceName);
                    if (reason!.kind === 'charge-paused') expect(now).toBeLessThan(q.pausedUntil!);
                    if (reason!.kind === 'unanswered') expect(failing || !listed(q)).toBe(false);
                    if (reason!.kind === 'off-source') expect(onPort(u, q)).toBe(true);
                    if (reason!.kind === 'network-dropped') {
                      expect(failing).toBe(false);
                      expect(now).toBeLessThan(q.answeredAt! + REMEMBER_MS);
                    }
                  }
                  told.set(u, { reported: true });
                } else if (d) {
                  // UNPLUGGED: once, only for a device reported since its last one, and never one its source lists.
                  expect(was).toBe(true);
                  expect(listed(q)).toBe(false);
                  // Nor one still on its USB port: off adb is not unplugged.
                  expect(onPort(u, q) && q.last !== undefined).toBe(false);
                  told.set(u, { reported: false });
                } else if (was) {
                  // Absent and owed: only while a source that did not answer says nothing is gone.
                  expect(failing).toBe(true);
                  expect(listed(q) && q.last !== undefined).toBe(false);
                }
              }
              break;
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
