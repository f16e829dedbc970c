import type { DeviceAction, Intent, Line } from '../../actions/runner.js';
import { cloudIdOf } from '../../booking/gate.js';
import { chargingOf } from '../../cloud/device-facts.js';
import { chargeWaysOf } from '../../config/charge-ways.js';
import { claimOf } from '../../devices/claims.js';
import type { PhoneControl } from '../../devices/control.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import { limited } from '../../log/limited.js';
import type { FeatureContext } from '../context.js';
import { afterLook, afterRead, afterWrite, asNotSamsung, decideProtection, notHonoured, POLICY, PROTECT_ON } from './policy.js';
import { PROTECTION, type ProtectionEntry } from './state.js';
import { counterKey } from '../../stats/counter.js';
import { errorText } from '../../util/error-text.js';

export const PROTECTION_WRITES = counterKey(
  'device_agent_battery_protection_writes_total',
  "Writes of Samsung's protect_battery (charge.ways = samsung), by what the read-back said (taken, not_taken).",
  ['result'],
);

export const PROTECTION_PROBLEMS = counterKey(
  'device_agent_battery_protection_problems_total',
  'Samsung battery protection problems found, each counted when it starts: not_taken (a write did not read back as 1), not_honoured (reads 1, charges past the cap).',
  ['problem'],
);

/** What this way needs of the platform (its PhoneControl): a global setting read and written, each with its deadline. */
export interface GlobalSettings extends PhoneControl {
  /** The value as the phone prints it, `null` when unset, undefined when the answer is no value; throws when the phone cannot be asked. */
  getGlobal(serial: string, key: string): Promise<string | undefined>;
  /** What the write printed (nothing, on success); throws when the phone cannot be asked. */
  putGlobal(serial: string, key: string, value: string): Promise<string>;
}

/** What protect_battery can read: unset, or a mode's number. */
const VALUE = /^(null|\d{1,9})$/;

const KEY = 'protect_battery';

/** A read or a write of the phone's setting, or its entry after a look (`now`: no I/O), with the line it says and whether the report shows the change. */
type ProtectionIntent = Intent & { phone: DeviceSnapshot } & (
    { kind: 'read' } | { kind: 'write' } | { kind: 'entry'; entry: ProtectionEntry; line?: Line; problem?: string; changed: boolean }
  );

/** Whether the phone is a Samsung, from its inventory's brand (ro.product.brand, else the manufacturer). */
function isSamsung(r: DeviceSnapshot) {
  return r.last && /^samsung$/i.test(r.last.brandName?.trim() ?? '');
}

/**
 * Samsung's battery protection: reads the phone's protect_battery, writes 1 where it is not (only on a fresh "not
 * booked"), reads it back, and watches whether the phone keeps to the cap; each call its own short shell session.
 */
export function samsungProtection(ctx: FeatureContext<GlobalSettings>): DeviceAction<ProtectionIntent> {
  const { registry, logger, mapping } = ctx;
  const phones = ctx.platforms.phones;
  const facet = registry.facet(PROTECTION);

  const get = async (serial: string) => {
    try {
      const value = await phones.getGlobal(serial, KEY);
      // The key holds a small number or nothing: any other line says nothing of it, and must not be written over.
      return value !== undefined && !VALUE.test(value) ? undefined : value;
    } catch (err) {
      logger.debug({ serial, err: errorText(err) }, `reading ${KEY} failed`);
      return undefined;
    }
  };

  /** What one phone needs now. */
  const intentsFor = (r: DeviceSnapshot, look: Parameters<DeviceAction['decide']>[0]): ProtectionIntent[] => {
    const entry = facet.get(r.key);
    const battery = r.last?.battery;
    const level = Number(battery?.percentage);
    const percent = Number.isFinite(level) ? level : undefined;
    const target = `samsung ${r.serial}`;
    const decision = look.decide(cloudIdOf(r.serial, r.udid), (verdict) =>
      decideProtection(
        entry,
        {
          now: look.now,
          samsung: isSamsung(r),
          percent,
          charging: chargingOf(battery?.status),
          verdict,
          busy: look.isBusy(target),
          writes: look.startsOf(target),
        },
        POLICY,
      ),
    );
    const fields = { serial: r.serial, udid: r.udid };
    const note = (next: ProtectionEntry, changed: boolean, line?: Line, problem?: string): ProtectionIntent[] => [
      { target, now: true, phone: r, kind: 'entry', entry: next, changed, line, problem },
    ];
    switch (decision.kind) {
      case 'needs-verdict':
      case 'none':
        return [];
      case 'not-samsung': {
        const message = `charge.ways names samsung, but this phone's brand is ${r.last?.brandName ?? 'not known'}: its battery is left alone`;
        const line = {
          key: 'protection-not-samsung',
          fields: { ...fields, brand: r.last?.brandName },
          text: `device ${r.udid}: ${message}`,
          level: 'warn' as const,
        };
        return note(asNotSamsung(message), true, line);
      }
      case 'read':
        return [{ target, phone: r, kind: 'read', lookAfter: true }];
      case 'write':
        // Counted at its start: the cooldown holds whatever the write and its read-back then do.
        return [{ target, device: r.key, phone: r, kind: 'write', lookAfter: true, counted: true, count: { key: PROTECTION_WRITES, labels: [] } }];
      case 'over':
      case 'under': {
        const clear = decision.kind === 'under' && decision.clearFlag;
        const line = clear
          ? { key: 'protection-honoured', fields: { ...fields, percent }, text: `device ${r.udid}: back under the battery protection cap` }
          : undefined;
        return note(afterLook(entry!, decision, look.now), clear, line);
      }
      case 'not-honoured': {
        const message = notHonoured(entry?.value, percent, POLICY.overMs);
        const line = { key: 'protection-not-honoured', fields: { ...fields, percent }, text: `device ${r.udid}: ${message}`, level: 'warn' as const };
        return note(afterLook(entry!, decision, look.now, message), true, line, 'not_honoured');
      }
    }
  };

  const read = async (r: DeviceSnapshot) => {
    // Pending from the first read on, for the rows and the report.
    facet.set(r.key, { failures: 0, state: 'pending', ...facet.get(r.key) });
    const value = await get(r.serial);
    const before = facet.get(r.key);
    const next = afterRead(before, value, ctx.clock.monotonic());
    facet.set(r.key, next);
    if (value === undefined && next.failures === 1)
      limited(logger).warn(
        'protection-unreadable',
        { serial: r.serial, udid: r.udid },
        `device ${r.udid}: could not read ${KEY}; trying again shortly`,
        r.serial,
      );
    else if (value !== undefined && value !== before?.value) logger.info({ serial: r.serial, udid: r.udid, value }, `device ${r.udid}: ${KEY} reads ${value}`);
  };

  const write = async (r: DeviceSnapshot) => {
    const { value: was, state: prior } = facet.get(r.key) ?? { state: 'pending' };
    // What put printed (nothing, on success) or why it failed: the log line of a write that did not take carries it.
    const output = await phones.putGlobal(r.serial, KEY, PROTECT_ON).catch(errorText);
    const readBack = await get(r.serial);
    const next = afterWrite(facet.get(r.key) ?? { state: 'pending', failures: 0 }, readBack, ctx.clock.monotonic());
    facet.set(r.key, next);
    const fields = { serial: r.serial, udid: r.udid };
    if (next.state === 'on')
      logger.info(
        { ...fields, was },
        `device ${r.udid}: Samsung battery protection on (${KEY} was ${was ?? 'unknown'}, reads ${PROTECT_ON} now) after the cloud said it is not booked`,
      );
    else if (prior !== 'not-taken') {
      // Said once: a write tried again after the cooldown that fails the same way is no news.
      ctx.stats.counter(PROTECTION_PROBLEMS).add('not_taken');
      limited(logger).warn('protection-not-taken', { ...fields, was, readBack, output }, `device ${r.udid}: ${next.message}`, r.serial);
    } else logger.debug({ ...fields, readBack, output }, `device ${r.udid}: ${KEY} still does not take`);
    return next.state === 'on' ? 'taken' : 'not_taken';
  };

  return {
    name: 'samsung-protection',
    actsOn: 'settings',
    tickMs: 5_000,
    // None of charge.ways names this way: nothing here ever runs, not even its tick.
    wanted: chargeWaysOf(ctx.settings.charge.ways).some((w) => w.way === 'samsung'),
    // `list` reads protect_battery for its CHARGE column, and never writes it (no gate says "not booked").
    readOnce: true,
    decide(look) {
      const records = registry.list(phones.platform);
      const claims = records.map((r) => claimOf(r));
      return records.flatMap((r) => {
        if (r.state !== 'device' || r.udid === undefined) return [];
        // A key naming another phone, or two, writes nothing on either (the look-up says so once).
        const found = mapping.wayOf(claimOf(r), claims, r.last?.modelName);
        return found.kind === 'way' && found.way === 'samsung' ? intentsFor(r, look) : [];
      });
    },
    async apply(intent, look) {
      const r = intent.phone;
      if (intent.kind === 'read') return read(r);
      if (intent.kind === 'write') {
        const result = await write(r);
        look.changed();
        return result;
      }
      facet.set(r.key, intent.entry);
      if (intent.problem) ctx.stats.counter(PROTECTION_PROBLEMS).add(intent.problem);
      if (intent.line) limited(logger)[intent.line.level ?? 'info'](intent.line.key, intent.line.fields, intent.line.text, r.serial);
      if (intent.changed) look.changed();
    },
  };
}
