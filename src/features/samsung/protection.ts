import { ActionRunner, RunnerAction, type ActionOptions } from '../../actions/runner.js';
import { chargingOf } from '../../cloud/device-facts.js';
import { chargeWaysOf, type ChargeWays } from '../../config/charge-ways.js';
import { DeviceMapping } from '../../actions/device-mapping.js';
import { claimOf } from '../../devices/claims.js';
import type { Settings } from '../../config/schema.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import type { PhoneControl } from '../../devices/control.js';
import { BatteryProtections } from './state.js';
import { PROTECTION_PROBLEMS, PROTECTION_WRITES } from './counts.js';
import { limited } from '../../log/limited.js';
import { cloudIdOf, type BookingGate } from '../../booking/gate.js';
import {
  afterLook,
  afterRead,
  afterWrite,
  asNotSamsung,
  decideProtection,
  notHonoured,
  PROTECT_ON,
  type ProtectionDecision,
  type ProtectionSettings,
} from './policy.js';

/** What this way needs of the platform (its PhoneControl): a global setting read and written, each with its deadline. */
export interface GlobalSettings extends PhoneControl {
  /** The value as the phone prints it, `null` when unset, undefined when the answer is no value; throws when the phone cannot be asked. */
  getGlobal(serial: string, key: string): Promise<string | undefined>;
  /** What the write printed (nothing, on success); throws when the phone cannot be asked. */
  putGlobal(serial: string, key: string, value: string): Promise<string>;
}

export interface SamsungProtectionOptions extends ActionOptions {
  phones: GlobalSettings;
  settings: Pick<Settings, 'charge'>;
  /** The look-up shared with charge control and recovery; else one of its own from charge.ways. */
  mapping?: DeviceMapping;
  /** Shared with recovery and the hub ways: the host's status requests are bounded together. None: only read, never write (`list`). */
  gate?: BookingGate;
  /** A state the report shows changed: the cloud should hear it now. */
  onChange?: () => void;
}

/** What protect_battery can read: unset, or a mode's number. */
const VALUE = /^(null|\d{1,9})$/;

const PROTECTION_POLICY: ProtectionSettings = {
  recheckMs: 10 * 60_000,
  retryMs: 60_000,
  cooldownMs: 60 * 60_000,
  overPercent: 90,
  overMs: 30 * 60_000,
};

const KEY = 'protect_battery';

/** Whether the phone is a Samsung, from its inventory's brand (ro.product.brand, else the manufacturer). */
function isSamsung(r: DeviceSnapshot): boolean | undefined {
  const brand = r.last?.brandName;
  return r.last === undefined ? undefined : brand !== undefined && /^samsung$/i.test(brand.trim());
}

/**
 * Samsung's battery protection (charge.ways = samsung): reads the phone's
 * protect_battery setting, writes 1 where it is not (only on a fresh "not
 * booked"), reads it back, and watches whether the phone keeps to the cap.
 * The decisions are policy.ts's; the state is the registry's
 * (BatteryProtections). Each call is its own short shell session, never
 * part of an inventory, and never awaited by a report.
 */
export class SamsungProtection extends RunnerAction {
  readonly name = 'samsung-protection';
  readonly tickMs: number;
  private readonly ways: ChargeWays;
  private readonly mapping: DeviceMapping;
  private readonly policy: ProtectionSettings;
  private readonly protections: BatteryProtections;

  constructor(private readonly o: SamsungProtectionOptions) {
    const { clock, gate, booking, onChange } = o;
    super(o.runner ?? new ActionRunner({ clock, booking, ...(gate && { gate }), ...(onChange && { onChange }) }));
    this.protections = new BatteryProtections(o.registry, o.phones.platform);
    this.tickMs = o.tickMs ?? 5_000;
    this.ways = chargeWaysOf(o.settings.charge.ways);
    this.mapping = o.mapping ?? new DeviceMapping({ hubPorts: new Map(), chargeWays: this.ways, logger: o.logger, clock: o.clock });
    this.policy = PROTECTION_POLICY;
  }

  /** Whether any entry of charge.ways names this way: none, and nothing here ever runs. */
  get wanted(): boolean {
    return this.ways.some((w) => w.way === 'samsung');
  }

  override start(): void {
    // None named: nothing here ever runs, not even its tick.
    if (this.wanted) super.start();
  }

  override devicesChanged(): void {
    if (this.wanted) super.devicesChanged();
  }

  look(): void {
    if (this.stopped || !this.wanted) return;
    const { registry, phones } = this.o;
    const listed = new Set<string>();
    const records = registry.list(phones.platform);
    const claims = records.map((r) => claimOf(r));
    for (const r of records) {
      if (r.state !== 'device' || r.udid === undefined) continue;
      // A key naming another phone, or two, writes nothing on either (the look-up says so once).
      const found = this.mapping.wayOf(claimOf(r), claims, r.last?.modelName);
      if (found.kind !== 'way' || found.way !== 'samsung') continue;
      listed.add(r.serial);
      this.lookAt(r);
    }
    // A phone taken out of the way (or off adb) keeps its setting; what the agent knew of it is still kept
    // while it is listed elsewhere, and dropped once it is gone from adb for good.
    for (const serial of this.protections.serials()) if (!listed.has(serial) && !registry.find(phones.platform, serial)) this.protections.forget(serial);
  }

  private lookAt(r: DeviceSnapshot): void {
    const { clock } = this.o;
    const entry = this.protections.of(r.serial);
    const battery = r.last?.battery;
    const level = Number(battery?.percentage);
    const now = clock.monotonic();
    const id = cloudIdOf(r.serial, r.udid);
    const busy = this.runner.isBusy(targetOf(r.serial));
    const writes = this.runner.startsOf(targetOf(r.serial));
    const decision = this.runner.decide(id, this, (verdict) =>
      decideProtection(
        entry,
        { now, samsung: isSamsung(r), percent: Number.isFinite(level) ? level : undefined, charging: chargingOf(battery?.status), verdict, busy, writes },
        this.policy,
      ),
    );
    this.carryOut(r, decision, now, Number.isFinite(level) ? level : undefined);
  }

  private carryOut(r: DeviceSnapshot, decision: ProtectionDecision, now: number, percent: number | undefined): void {
    const { logger, stats } = this.o;
    const entry = this.protections.of(r.serial);
    const log = limited(logger);
    switch (decision.kind) {
      case 'needs-verdict':
      case 'none':
        return;
      case 'not-samsung': {
        const message = `charge.ways names samsung, but this phone's brand is ${r.last?.brandName ?? 'not known'}: its battery is left alone`;
        this.protections.set(r.serial, asNotSamsung(entry, message));
        log.warn('protection-not-samsung', { serial: r.serial, udid: r.udid, brand: r.last?.brandName }, `device ${r.udid}: ${message}`, r.serial);
        return this.runner.changed();
      }
      case 'read':
        // Pending from the first read on, for the rows and the report.
        this.protections.set(r.serial, { failures: 0, state: 'pending', ...entry });
        this.runner.run(targetOf(r.serial), () => this.read(r), this);
        return;
      case 'write':
        // Counted at its start: the cooldown holds whatever the write and its read-back then do.
        this.runner.run(targetOf(r.serial), () => this.write(r), this, true);
        return;
      case 'over':
      case 'under':
        this.protections.set(r.serial, afterLook(entry!, decision, now));
        if (decision.kind === 'under' && decision.clearFlag) {
          log.info('protection-honoured', { serial: r.serial, udid: r.udid, percent }, `device ${r.udid}: back under the battery protection cap`, r.serial);
          this.runner.changed();
        }
        return;
      case 'not-honoured': {
        const message = notHonoured(entry?.value, percent, this.policy.overMs);
        this.protections.set(r.serial, afterLook(entry!, decision, now, message));
        stats.counter(PROTECTION_PROBLEMS).add('not_honoured');
        log.warn('protection-not-honoured', { serial: r.serial, udid: r.udid, percent }, `device ${r.udid}: ${message}`, r.serial);
        return this.runner.changed();
      }
    }
  }

  private async get(serial: string): Promise<string | undefined> {
    try {
      const value = await this.o.phones.getGlobal(serial, KEY);
      // The key holds a small number or nothing: any other line (a vendor's warning, garbage) says nothing of it,
      // and taken for "off" it would be written over and quoted in the phone's message.
      return value !== undefined && !VALUE.test(value) ? undefined : value;
    } catch (err) {
      this.o.logger.debug({ serial, err: err instanceof Error ? err.message : String(err) }, `reading ${KEY} failed`);
      return undefined;
    }
  }

  private async read(r: DeviceSnapshot): Promise<void> {
    const { clock, logger } = this.o;
    const value = await this.get(r.serial);
    const before = this.protections.of(r.serial);
    const next = afterRead(before, value, clock.monotonic());
    this.protections.set(r.serial, next);
    if (value === undefined && next.failures === 1)
      limited(logger).warn(
        'protection-unreadable',
        { serial: r.serial, udid: r.udid },
        `device ${r.udid}: could not read ${KEY}; trying again shortly`,
        r.serial,
      );
    else if (value !== undefined && value !== before?.value) logger.info({ serial: r.serial, udid: r.udid, value }, `device ${r.udid}: ${KEY} reads ${value}`);
  }

  private async write(r: DeviceSnapshot): Promise<void> {
    const { clock, logger, stats } = this.o;
    const { value: was, state: prior } = this.protections.of(r.serial)!;
    // What put printed (nothing, on success) or why it failed: the log line of a write that did not take carries it.
    let output: string;
    try {
      output = await this.o.phones.putGlobal(r.serial, KEY, PROTECT_ON);
    } catch (err) {
      output = err instanceof Error ? err.message : String(err);
    }
    const readBack = await this.get(r.serial);
    const next = { ...afterWrite(this.protections.of(r.serial)!, readBack, clock.monotonic()), before: was };
    this.protections.set(r.serial, next);
    const result = next.state === 'on' ? 'taken' : 'not_taken';
    stats.counter(PROTECTION_WRITES).add(result);
    if (next.state === 'on')
      logger.info(
        { serial: r.serial, udid: r.udid, was },
        `device ${r.udid}: Samsung battery protection on (${KEY} was ${was ?? 'unknown'}, reads ${PROTECT_ON} now) after the cloud said it is not booked`,
      );
    else if (prior !== 'not-taken') {
      // Said once: a write tried again after the cooldown that fails the same way is no news.
      stats.counter(PROTECTION_PROBLEMS).add('not_taken');
      limited(logger).warn('protection-not-taken', { serial: r.serial, udid: r.udid, was, readBack, output }, `device ${r.udid}: ${next.message}`, r.serial);
    } else logger.debug({ serial: r.serial, udid: r.udid, readBack, output }, `device ${r.udid}: ${KEY} still does not take`);
    this.runner.changed();
  }
}

/** The runner's target for the phone's setting: one read or write of it at a time. */
function targetOf(serial: string): string {
  return `samsung ${serial}`;
}
