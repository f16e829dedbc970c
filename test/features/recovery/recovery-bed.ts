import { recoveryFeature } from '../../../src/features/recovery/feature.js';
import { personNotes } from '../../../src/features/recovery/notes.js';
import { holdNote } from '../../../src/actions/runner.js';
import type { RecoveryAdb } from '../../../src/features/recovery/carry.js';
import { USB_EVIDENCE } from '../../../src/devices/usb-evidence.js';
import { SharedParts } from '../../../src/util/shared-parts.js';
import { actionBed, featureContext } from '../../support/feature-bed.js';
import type { BookingAnswer } from '../../../src/cloud/booking-status.js';
import { loadSettings } from '../../../src/config/load.js';
import { RECOVERY_ACTIONS } from '../../../src/features/recovery/recovery.js';
import { RECOVERY_HELD } from '../../../src/features/recovery/holds.js';
import { recordKey } from '../../../src/devices/record.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import type { PortPower } from '../../../src/hub/uhubctl.js';
import { AgentStats } from '../../../src/stats/agent-stats.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { captureLogger } from '../../log/capture.js';
import type { UsbEvidence } from '../../../src/devices/usb-evidence.js';
import { androidPhone } from '../../support/devices.js';

/** The lines of uhubctl's `-a cycle` output recovery's tests look for (the whole of it: test/hub/uhubctl). */
const CYCLED = 'Sent power off request\nSent power on request';

export interface RecoveryBedOptions {
  /** The agent's settings, as variables (DEVICE_AGENT_...). */
  env?: Record<string, string>;
  /** The hub tool's cycle: resolves with its output or rejects with its words. Default: cycles, as uhubctl says. */
  cycle?: PortPower['cycle'];
  /** The hub tool's status listing (`uhubctl -l HUB`); none: the tool has none. */
  status?: PortPower['status'];
  /** adb connect's answer (`adb connect ADDRESS`): default, it connects. */
  connect?: (address: string) => Promise<string>;
  /** The USB layer's word on the phones, as the wiring hands it in; none: recovery has no USB evidence. */
  usb?: UsbEvidence;
  /** How often recovery looks between events (ms); default: the agent's 2 s. */
  tickMs?: number;
  /** The cloud's booking answer (GET /devices/{id}/status); default: at once, `booked` or `cloud.unknown`. One that takes virtual time needs run(), not advance(). */
  ask?: (id: string) => Promise<BookingAnswer>;
}

/**
 * Recovery as buildActions wires it (one ActionRunner, the booking gate of
 * the settings, the real registry, policy, escalations and notes) on
 * VirtualTime, with the I/O scripted: adb's reconnects and connects and the
 * hub tool note what they were asked (`done`, with the virtual time) and
 * succeed unless told otherwise; the cloud's booking answer is `booked` (a
 * set of udids) or `unknown`. The test plays adb's listing and the phone's
 * inventories through the registry (list, answered, failed), as the
 * Android source does.
 */
export function recoveryBed(options: RecoveryBedOptions = {}) {
  const time = new VirtualTime();
  const clock = time.clock({ seed: 7 });
  const settings = loadSettings({ env: options.env ?? {} });
  const registry = new DeviceRegistry();
  const stats = new AgentStats();
  const log = captureLogger('debug');
  const done: Array<{ at: number; what: string }> = [];
  const asked: Array<{ at: number; id: string }> = [];
  const booked = new Set<string>();
  const cloud = { unknown: undefined as string | undefined };
  const booking = {
    ask: (id: string): Promise<BookingAnswer> => {
      asked.push({ at: time.now, id });
      if (options.ask) return options.ask(id);
      return Promise.resolve(cloud.unknown !== undefined ? { unknown: cloud.unknown } : { booked: booked.has(id) });
    },
  };
  const note = (what: string): void => void done.push({ at: time.now, what });
  const portPower = {
    cycle: (hub: string, port: number) => {
      note(`cycle ${hub}:${port}`);
      return options.cycle ? options.cycle(hub, port) : Promise.resolve(CYCLED);
    },
    ...(options.status && {
      status: (hub: string) => {
        note(`status ${hub}`);
        return options.status!(hub);
      },
    }),
  };
  const adb: RecoveryAdb = {
    platform: 'android',
    reconnectOffline: () => (note('reconnect offline'), Promise.resolve('')),
    reconnect: (serial) => (note(`reconnect ${serial}`), Promise.resolve('')),
    connect: (address) => (note(`connect ${address}`), options.connect ? options.connect(address) : Promise.resolve(`already connected to ${address}`)),
  };
  // The USB layer's word, as the layer offers it to the other features.
  const shared = new SharedParts();
  if (options.usb) shared.of(USB_EVIDENCE, () => options.usb!);
  const ctx = featureContext({ settings, registry, stats, logger: log.logger, clock, phones: adb, uhubctl: portPower, shared });
  const recovery = actionBed(recoveryFeature, ctx, { booking, ...(options.tickMs !== undefined && { tickMs: options.tickMs }) });
  const gate = recovery.gate!;
  const listing = new Map<string, string>();
  const key = (serial: string): string => recordKey('android', serial);
  const notes = personNotes(registry);
  return {
    time,
    clock,
    gate,
    registry,
    recovery,
    stats,
    log,
    booked,
    cloud,
    /** adb's reconnects and connects, the hub tool's cycles and listings, in order. */
    done,
    /** The booking questions, in order. */
    asked,
    /** What was done at or after this virtual time (ms), the connects left out. */
    doneSince: (at: number): string[] => done.filter((d) => d.at >= at && !d.what.startsWith('connect ')).map((d) => d.what),
    /** adb lists the phone in this state now (the others as before); recovery hears of it, as from the Android source. */
    list(serial: string, state: string): void {
      listing.set(serial, state);
      registry.sync('android', new Map(listing));
      recovery.devicesChanged();
    },
    /** adb's whole listing at once (serial -> state), as one change of its list, with the USB place `devices -l` gives each phone on USB. */
    relist(next: ReadonlyMap<string, string>, usb: ReadonlyMap<string, string> = new Map()): void {
      listing.clear();
      for (const [serial, state] of next) listing.set(serial, state);
      registry.sync('android', new Map(listing));
      registry.setUsb('android', new Map([...usb].filter(([serial]) => listing.has(serial)).map(([serial, port]) => [serial, { usb: port }])));
      recovery.devicesChanged();
    },
    /** adb no longer lists the phone (it dropped its transport, or the phone was unplugged). */
    unlist(serial: string): void {
      listing.delete(serial);
      registry.sync('android', new Map(listing));
      recovery.devicesChanged();
    },
    /** The phone answered an inventory: it says who it is and its failure run ends. */
    answered(serial: string, udid: string): void {
      registry.readings.answered(key(serial), androidPhone(udid, { serialNumber: serial }), clock.wall(), clock.monotonic());
      recovery.devicesChanged();
    },
    /** The phone's inventory failed (its shell missed the deadline), `times` in a row. */
    failed(serial: string, times = 1): void {
      for (let i = 0; i < times; i++) registry.readings.failed(key(serial), 'shell did not answer within 2 s', clock.wall(), clock.monotonic());
      recovery.devicesChanged();
    },
    /** What recovery notes for the phone's report (held back, needs a person). */
    notes: (serial: string) => ({ heldBack: holdNote(registry, key(serial), 'recovery'), attention: notes.get(key(serial)) }),
    /** Runs virtual time on by ms in 1 s steps, the work each step started settled. */
    async advance(ms: number): Promise<void> {
      const end = time.now + ms;
      while (time.now < end) {
        time.advance(Math.min(1_000, end - time.now));
        await recovery.settled();
      }
    },
    /**
     * Runs virtual time on by ms timer by timer, the work each timer started
     * let run before the next one fires (an answer that takes virtual time
     * would hold settled(), and so advance(), for ever).
     */
    async run(ms: number): Promise<void> {
      const end = time.now + ms;
      for (let at = time.next; at !== undefined && at <= end; at = time.next) {
        time.runUntil(at);
        await new Promise((resolve) => setImmediate(resolve));
      }
      time.runUntil(end);
      await new Promise((resolve) => setImmediate(resolve));
    },
    /** Runs virtual time on in 1 s steps until `done` holds, at most maxMs; throws if it never does. */
    async until(done: () => boolean, maxMs: number): Promise<void> {
      const end = time.now + maxMs;
      while (!done()) {
        if (time.now >= end) throw new Error(`not within ${maxMs / 1000} s of virtual time`);
        time.advance(1_000);
        await recovery.settled();
      }
    },
    /** device_agent_recovery_actions_total{action,result}. */
    actions: (action: string, result: 'ok' | 'failed'): number => stats.counter(RECOVERY_ACTIONS).get(action, result),
    /** device_agent_recovery_held_total{action,reason}. */
    held: (action: string, reason: 'booked' | 'unknown'): number => stats.counter(RECOVERY_HELD).get(action, reason),
    /** The log lines whose message matches. */
    lines: (re: RegExp) => log.lines().filter((l) => re.test(String(l.msg))),
  };
}
