import { ActionRunner, RunnerAction, type ActionOptions } from '../../actions/runner.js';
import { parseReadinessChecks } from '../../config/readiness.js';
import type { Settings } from '../../config/schema.js';
import type { SettingsWriter } from '../../devices/control.js';
import { claimOf, conflictsOf } from '../../devices/claims.js';
import { READINESS_VALUES } from '../../devices/readiness-values.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import { cloudIdOf, type BookingGate } from '../../booking/gate.js';
import { READINESS_FIXES } from './counts.js';
import { ReadinessFixes } from './state.js';
import {
  afterFix,
  afterRead,
  decideFix,
  stuckTo,
  targetsOf,
  type FixDecision,
  type FixEntry,
  type FixSettings,
  type ReadBack,
  type Target,
  type Write,
} from './policy.js';

export interface ReadinessFixOptions extends ActionOptions {
  /** The platform's phones whose settings can be read and written: the action acts on its phones only. */
  phones: SettingsWriter;
  settings: Pick<Settings, 'readiness'>;
  /** Shared with the other actions: the host's status requests are bounded together. None: nothing is ever written. */
  gate?: BookingGate;
  onChange?: () => void;
}

const FIX_POLICY: FixSettings = {
  recheckMs: 5 * 60_000,
  retryMs: 60_000,
  cooldownMs: 10 * 60_000,
  maxPerHour: 3,
};

/** What a setting may read: unset, or a number. */
const VALUE = /^(null|-?\d{1,9}(\.\d{1,9})?)$/;

/**
 * Readiness's fix-it action (readiness.fix, default off): where the phone's
 * inventory (the readiness values published in src/devices/readiness-values.ts)
 * shows a setting of the lab's baseline that the agent may change (policy.ts,
 * FIXABLE) differing, reads those settings, puts back those that differ, only on a fresh "not booked" from
 * the cloud, and reads each back. The decisions are policy.ts's, what was
 * read the registry's (ReadinessFixes), when each fix started the runner's.
 * Each call is its own short shell session, never part of an inventory, and
 * never awaited by a report.
 */
export class ReadinessFix extends RunnerAction {
  readonly name = 'readiness-fix';
  readonly tickMs: number;
  private readonly targets: readonly Target[];
  private readonly fixes: ReadinessFixes;

  constructor(private readonly o: ReadinessFixOptions) {
    const { clock, gate, booking, onChange } = o;
    super(o.runner ?? new ActionRunner({ clock, booking, ...(gate && { gate }), ...(onChange && { onChange }) }));
    this.tickMs = o.tickMs ?? 5_000;
    this.targets = targetsOf(parseReadinessChecks(o.settings.readiness.checks));
    this.fixes = new ReadinessFixes(o.registry, o.phones.platform);
  }

  /** Turned on, with a setting it may change in the baseline: else nothing here ever runs. */
  get wanted(): boolean {
    return this.o.settings.readiness.fix && this.targets.length > 0;
  }

  override start(): void {
    if (this.wanted) super.start();
  }

  override devicesChanged(): void {
    if (this.wanted) super.devicesChanged();
  }

  look(): void {
    if (this.stopped || !this.wanted) return;
    const { registry, phones, clock } = this.o;
    const records = registry.list(phones.platform);
    const conflicts = conflictsOf(records.map((r) => claimOf(r)));
    const now = clock.monotonic();
    const inventory = registry.facet(READINESS_VALUES);
    for (const r of records) {
      if (r.state !== 'device') continue;
      const entry = this.fixes.of(r.serial);
      const conflicted = conflicts.has(r.serial);
      const target = this.targetOf(r.serial);
      const busy = this.runner.isBusy(target);
      const fixes = this.runner.startsOf(target);
      const decision = this.runner.decide(cloudIdOf(r.serial, r.udid), this, (verdict) =>
        decideFix(entry, { now, conflicted, busy, fixes, inventory: inventory.get(r.key), ...(verdict && { verdict }) }, this.targets, FIX_POLICY),
      );
      this.carryOut(r, decision);
    }
    // What the agent knew of a phone gone from adb for good is dropped.
    for (const serial of this.fixes.serials()) if (!registry.find(phones.platform, serial)) this.fixes.forget(serial);
  }

  private carryOut(r: DeviceSnapshot, decision: FixDecision): void {
    const entry = this.fixes.of(r.serial);
    switch (decision.kind) {
      case 'none':
      case 'needs-verdict':
        return;
      case 'refused': {
        if (entry?.refused === decision.reason) return;
        this.fixes.set(r.serial, { ...entry!, refused: decision.reason });
        this.o.stats.counter(READINESS_FIXES).add('refused');
        this.o.logger.info({ serial: r.serial, udid: r.udid }, `device ${r.udid ?? r.serial}: readiness settings not put back: ${decision.reason}`);
        return;
      }
      case 'read':
        this.begin(r, { failures: 0, stuck: {}, ...entry }, () => this.read(r));
        return;
      case 'fix':
        this.begin(r, entry!, () => this.fix(r, decision.writes), true);
        return;
    }
  }

  /** One piece of work on the phone, through the runner, which marks it in flight, counts a fix's start and looks again when it ends. */
  private begin(r: DeviceSnapshot, entry: FixEntry, work: () => Promise<void>, fix = false): void {
    this.fixes.set(r.serial, entry);
    this.runner.run(this.targetOf(r.serial), work, this, fix);
  }

  /** The runner's target for the phone: one read or fix of it at a time. */
  private targetOf(serial: string): string {
    return `${this.o.phones.platform}/${serial}`;
  }

  /** A setting's value as the phone answered it (undefined: nothing readable), or why the phone could not be asked (gone, its shell cut, no answer in time). */
  private async ask(serial: string, target: Target): Promise<{ value: string | undefined } | { unasked: string }> {
    const { namespace, key } = target.setting;
    try {
      const value = await this.o.phones.getSetting(serial, namespace, key);
      // A setting here holds a number or nothing: any other line (a vendor's warning) says nothing of it.
      return { value: value !== undefined && VALUE.test(value.trim()) ? value.trim() : undefined };
    } catch (err) {
      const unasked = err instanceof Error ? err.message : String(err);
      this.o.logger.debug({ serial, err: unasked }, `reading ${namespace} ${key} failed`);
      return { unasked };
    }
  }

  private async read(r: DeviceSnapshot): Promise<void> {
    const values: Record<string, string> = {};
    let failed = false;
    for (const target of this.targets) {
      const answer = await this.ask(r.serial, target);
      // A phone that cannot be asked (gone, its shell cut) is not asked the rest: the read is tried again after the retry delay.
      if ('unasked' in answer) {
        failed = true;
        break;
      }
      if (answer.value === undefined) failed = true;
      else values[target.setting.check] = answer.value;
    }
    this.fixes.set(r.serial, afterRead(this.fixes.of(r.serial), failed ? undefined : values, this.o.clock.monotonic()));
  }

  private async fix(r: DeviceSnapshot, writes: readonly Write[]): Promise<void> {
    const { logger, stats, clock } = this.o;
    const readBacks: ReadBack[] = [];
    /** The phone could not be asked through a write and its read-back (unplugged, its shell cut): the write it was, and why. */
    let cut: { write: Write; index: number; reason: string } | undefined;
    for (const [index, write] of writes.entries()) {
      const { namespace, key } = write.target.setting;
      let output = '';
      let putFailed: string | undefined;
      try {
        output = await this.o.phones.putSetting(r.serial, namespace, key, write.target.write);
      } catch (err) {
        putFailed = err instanceof Error ? err.message : String(err);
      }
      // Always read back after a write: the phone's word, not the write's, says whether it took.
      const answer = await this.ask(r.serial, write.target);
      if (output) logger.debug({ serial: r.serial, namespace, key, output }, `settings put ${namespace} ${key} printed something`);
      if (putFailed === undefined && 'value' in answer) {
        readBacks.push({ write, value: answer.value });
        continue;
      }
      // A call failed: the phone is gone or its shell was cut. A read-back that still shows the baseline says the write took;
      // otherwise what it holds is not known, which is not "did not stick". Nothing more is asked of it in this fix.
      if ('value' in answer && answer.value !== undefined && stuckTo({ write, value: answer.value })) readBacks.push({ write, value: answer.value });
      cut = { write, index, reason: putFailed ?? ('unasked' in answer ? answer.unasked : '') };
      break;
    }
    // Forgotten while the fix ran (the phone gone from adb for good, look() dropped its entry): nothing of it to keep.
    const entry = this.fixes.of(r.serial);
    if (entry) this.fixes.set(r.serial, afterFix(entry, readBacks, clock.monotonic(), cut !== undefined));
    const name = `device ${r.udid ?? r.serial}`;
    const taken = readBacks.filter(stuckTo);
    const notTaken = readBacks.filter((b) => !stuckTo(b));
    stats.counter(READINESS_FIXES).add(cut ? 'interrupted' : notTaken.length === 0 ? 'fixed' : 'not_taken');
    const putBack = taken.map((b) => `${b.write.target.setting.key} ${b.write.from} → ${b.value}`).join(', ');
    if (cut) {
      // One line: the phone going away is said where adb's list is read; this says what the fix leaves unknown.
      const confirmed = readBacks.some((b) => b.write === cut.write);
      const notTried = writes.slice(cut.index + 1).map((w) => w.target.setting.key);
      logger.info(
        { serial: r.serial, udid: r.udid, settings: writes.map((w) => w.target.setting.key) },
        `${name}: readiness settings fix cut short: the phone could not be asked (${cut.reason})` +
          (putBack ? `; put back: ${putBack}` : '') +
          (confirmed ? '' : `; not confirmed: ${cut.write.target.setting.key}`) +
          (notTried.length > 0 ? `; not tried: ${notTried.join(', ')}` : '') +
          '; read again once it answers',
      );
    } else if (taken.length > 0)
      logger.info(
        { serial: r.serial, udid: r.udid, settings: taken.map((b) => b.write.target.setting.key) },
        `${name}: readiness settings put back after the cloud said it is not booked: ${putBack}`,
      );
    for (const b of notTaken) {
      const { namespace, key } = b.write.target.setting;
      logger.warn(
        { serial: r.serial, udid: r.udid, namespace, key, wrote: b.write.target.write, readBack: b.value },
        `${name}: ${namespace} ${key} did not stick (wrote ${b.write.target.write}, reads ${b.value ?? 'nothing readable'}); not written again on this phone until its value changes`,
      );
    }
    this.runner.changed();
  }
}
