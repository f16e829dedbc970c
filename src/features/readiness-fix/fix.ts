import type { Applying, DeviceAction, Intent } from '../../actions/runner.js';
import { cloudIdOf } from '../../booking/gate.js';
import { parseReadinessChecks } from '../readiness/settings.js';
import type { SettingsWriter, WriteRefusal } from '../../devices/control.js';
import { SaidOnce } from '../../log/said-once.js';
import { claimOf, conflictsOf } from '../../devices/claims.js';
import { READINESS_VALUES } from '../../devices/readiness-values.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import type { FeatureContext } from '../context.js';
import { FIXES } from './state.js';
import {
  afterFix,
  afterRead,
  ANSWER_MAX_AGE_MS,
  decideFix,
  FIX_POLICY,
  refusalOf,
  stuckTo,
  targetsOf,
  type ReadBack,
  type Target,
  type Write,
} from './policy.js';
import { counterKey } from '../../stats/counter.js';
import { errorText } from '../../util/error-text.js';

export const READINESS_FIXES = counterKey(
  'device_agent_readiness_fixes_total',
  'Fixes of the settings readiness.fix may put back, by result: fixed (every write read back at the baseline), not_taken (a setting read back otherwise), interrupted (the phone could not be asked midway: unplugged, its shell cut; read again once it answers), refused (the cloud said booked or could not say: counted once per stretch, and once for a fix the cloud stopped midway, asked again before a write whose answer was 3 s old; or the phone refused a write, a policy of its maker until a developer toggle is on: once per fix).',
  ['result'],
);

/** What a setting may read: unset, or a number. */
const VALUE = /^(null|-?\d{1,9}(\.\d{1,9})?)$/;

const keyOf = (w: Write) => w.target.setting.key;

/** A read of the targets' settings on a phone, or a fix: these writes, each read back. */
type FixIntent = Intent & { phone: DeviceSnapshot } & ({ kind: 'read' } | { kind: 'fix'; writes: readonly Write[] });

/**
 * Readiness's fix-it action (default off): where the inventory shows a fixable setting of the baseline differing, reads
 * those settings, puts back those that differ only on a fresh "not booked", and reads each back, each call its own
 * short shell session.
 */
export function readinessFix(ctx: FeatureContext<SettingsWriter>): DeviceAction<FixIntent> {
  const { registry, logger } = ctx;
  const phones = ctx.platforms.phones;
  const fixes = registry.facet(FIXES);
  const targets = targetsOf(parseReadinessChecks(ctx.settings.readiness.checks));
  const inventory = registry.facet(READINESS_VALUES);
  /** The booking's refusal of a fix, said and counted once until a fix goes through (the runner's hold). */
  const refusal = (r: DeviceSnapshot, reason: string) => ({
    key: r.key,
    by: 'readiness-fix',
    mark: reason,
    count: { key: READINESS_FIXES, labels: ['refused'] },
    line: {
      key: 'readiness-fix-refused',
      fields: { serial: r.serial, udid: r.udid },
      text: `device ${r.udid ?? r.serial}: readiness settings not put back: ${reason}`,
    },
  });
  /** The phones' refusals of writes, said once per phone until a write of it goes through or what it refuses changes. */
  const refusalsSaid = new SaidOnce();

  /** A setting's value as the phone answered it (undefined: nothing readable), or why the phone could not be asked (gone, its shell cut, no answer in time). */
  const ask = async (serial: string, target: Target): Promise<{ value: string | undefined } | { unasked: string }> => {
    const { namespace, key } = target.setting;
    try {
      const value = await phones.getSetting(serial, namespace, key);
      // A setting here holds a number or nothing: any other line (a vendor's warning) says nothing of it.
      return { value: value !== undefined && VALUE.test(value.trim()) ? value.trim() : undefined };
    } catch (err) {
      const unasked = errorText(err);
      logger.debug({ serial, err: unasked }, `reading ${namespace} ${key} failed`);
      return { unasked };
    }
  };

  const read = async (r: DeviceSnapshot) => {
    const values: Record<string, string> = {};
    let failed = false;
    for (const target of targets) {
      const answer = await ask(r.serial, target);
      // A phone that cannot be asked (gone, its shell cut) is not asked the rest: the read is tried again after the retry delay.
      if ('unasked' in answer) {
        failed = true;
        break;
      }
      if (answer.value === undefined) failed = true;
      else values[target.setting.check] = answer.value;
    }
    fixes.set(r.key, afterRead(fixes.get(r.key), failed ? undefined : values, ctx.clock.monotonic()));
  };

  const fix = async (r: DeviceSnapshot, writes: readonly Write[], look: Applying) => {
    const readBacks: ReadBack[] = [];
    /** The phone could not be asked through a write and its read-back (unplugged, its shell cut): the write it was, and why. */
    let cut: { write: Write; index: number; reason: string } | undefined;
    /** The cloud, asked again before a write, said booked or could not say: the write not made, and why. */
    let refused: { index: number; reason: string } | undefined;
    /** Writes the phone refused (its maker's policy): not "did not stick", never marked so; written again after the cooldown. */
    const phoneRefused: Array<{ write: Write; refusal: WriteRefusal }> = [];
    const maker = r.last?.brandName;
    for (const [index, write] of writes.entries()) {
      const { namespace, key } = write.target.setting;
      // Each write rests on a "not booked" younger than ANSWER_MAX_AGE_MS: older (the writes before it took that long), asked again.
      const verdict = await look.freshVerdict(cloudIdOf(r.serial, r.udid), ANSWER_MAX_AGE_MS);
      if (verdict.kind !== 'free') {
        refused = { index, reason: refusalOf(verdict) ?? 'the cloud, asked again, has not answered yet' };
        break;
      }
      let output = '';
      let putFailed: string | undefined;
      try {
        output = await phones.putSetting(r.serial, namespace, key, write.target.write);
      } catch (err) {
        putFailed = errorText(err);
      }
      // Always read back after a write: the phone's word, not the write's, says whether it took.
      const answer = await ask(r.serial, write.target);
      const refusal = output ? phones.refusal(output, maker) : undefined;
      if (output && !refusal) logger.debug({ serial: r.serial, namespace, key, output }, `settings put ${namespace} ${key} printed something`);
      if (putFailed === undefined && 'value' in answer) {
        // Refused, and still off the baseline: the phone's policy, said as such, not a value that did not stick.
        if (refusal && !stuckTo({ write, value: answer.value })) phoneRefused.push({ write, refusal });
        else readBacks.push({ write, value: answer.value });
        continue;
      }
      // A call failed (the phone gone, its shell cut): a read-back still showing the baseline says the write took; else
      // its value is unknown, not "did not stick". Nothing more is asked of it in this fix.
      if ('value' in answer && stuckTo({ write, value: answer.value })) readBacks.push({ write, value: answer.value });
      cut = { write, index, reason: putFailed ?? ('unasked' in answer ? answer.unasked : '') };
      break;
    }
    // Forgotten while the fix ran (the phone gone from adb for good, look() dropped its entry): nothing of it to keep.
    const entry = fixes.get(r.key);
    if (entry) fixes.set(r.key, afterFix(entry, readBacks, ctx.clock.monotonic(), cut !== undefined));
    // A refusal midway is said once, as one at the start is (the look's hold), until a fix goes through: this line says it.
    if (refused) look.hold({ ...refusal(r, refused.reason), quiet: true });
    const name = `device ${r.udid ?? r.serial}`;
    const fields = { serial: r.serial, udid: r.udid };
    const taken = readBacks.filter(stuckTo);
    const notTaken = readBacks.filter((b) => !stuckTo(b));
    const putBack = taken.map((b) => `${b.write.target.setting.key} ${b.write.from} → ${b.value}`).join(', ');
    if (refused) {
      const notWritten = writes.slice(refused.index).map(keyOf);
      logger.info(
        { ...fields, settings: notWritten },
        `${name}: readiness settings fix stopped before writing ${notWritten.join(', ')}: asked again (its last "not booked" was older than ${ANSWER_MAX_AGE_MS / 1000} s), ${refused.reason}` +
          (putBack ? `; put back before: ${putBack}` : ''),
      );
    } else if (cut) {
      // One line: the phone going away is said where adb's list is read; this says what the fix leaves unknown.
      const confirmed = readBacks.some((b) => b.write === cut.write);
      const notTried = writes.slice(cut.index + 1).map(keyOf);
      logger.info(
        { ...fields, settings: writes.map(keyOf) },
        `${name}: readiness settings fix cut short: the phone could not be asked (${cut.reason})` +
          (putBack ? `; put back: ${putBack}` : '') +
          (confirmed ? '' : `; not confirmed: ${cut.write.target.setting.key}`) +
          (notTried.length > 0 ? `; not tried: ${notTried.join(', ')}` : '') +
          '; read again once it answers',
      );
    } else if (taken.length > 0)
      logger.info(
        { ...fields, settings: taken.map((b) => keyOf(b.write)) },
        `${name}: readiness settings put back after the cloud said it is not booked: ${putBack}`,
      );
    if (phoneRefused.length > 0) {
      const keys = phoneRefused.map((p) => `${p.write.target.setting.namespace} ${p.write.target.setting.key}`);
      const { said, enable } = phoneRefused[0]!.refusal;
      const text =
        `${name}: the phone refused to write ${keys.join(', ')} (SecurityException: ${said}): its maker keeps adb from changing settings until a developer toggle is on; ` +
        `turn on ${enable}. The agent writes it again after its cooldown`;
      if (refusalsSaid.say(r.key, text)) logger.warn({ ...fields, settings: phoneRefused.map((p) => keyOf(p.write)), refusal: said }, text);
    } else if (readBacks.length > 0) refusalsSaid.forget(r.key);
    for (const b of notTaken) {
      const { namespace, key } = b.write.target.setting;
      logger.warn(
        { ...fields, namespace, key, wrote: b.write.target.write, readBack: b.value },
        `${name}: ${namespace} ${key} did not stick (wrote ${b.write.target.write}, reads ${b.value ?? 'nothing readable'}); not written again on this phone until its value changes or the phone leaves adb and comes back`,
      );
    }
    return cut ? 'interrupted' : refused || phoneRefused.length > 0 ? 'refused' : notTaken.length === 0 ? 'fixed' : 'not_taken';
  };

  return {
    name: 'readiness-fix',
    actsOn: 'settings',
    tickMs: 5_000,
    // Turned on, with a setting it may change in the baseline: else nothing here ever runs.
    wanted: ctx.settings.readiness.fix && targets.length > 0,
    decide(look) {
      const records = registry.list(phones.platform);
      const conflicts = conflictsOf(records.map((r) => claimOf(r)));
      return records.flatMap((r): FixIntent[] => {
        if (r.state !== 'device') return [];
        // The runner's target for the phone: one read or fix of it at a time.
        const target = `${phones.platform}/${r.serial}`;
        const entry = fixes.get(r.key);
        const decision = look.decide(cloudIdOf(r.serial, r.udid), (verdict) =>
          decideFix(
            entry,
            {
              now: look.now,
              conflicted: conflicts.has(r.serial),
              busy: look.isBusy(target),
              fixes: look.startsOf(target),
              inventory: inventory.get(r.key),
              verdict,
            },
            targets,
            FIX_POLICY,
          ),
        );
        switch (decision.kind) {
          case 'none':
          case 'needs-verdict':
            return [];
          case 'refused':
            look.hold(refusal(r, decision.reason));
            return [];
          case 'read':
            return [{ target, phone: r, kind: 'read', lookAfter: true }];
          case 'fix':
            return [
              {
                target,
                device: r.key,
                phone: r,
                kind: 'fix',
                writes: decision.writes,
                lookAfter: true,
                counted: true,
                count: { key: READINESS_FIXES, labels: [] },
              },
            ];
        }
      });
    },
    async apply(intent, look) {
      const r = intent.phone;
      if (intent.kind === 'read') {
        fixes.set(r.key, { failures: 0, stuck: {}, ...fixes.get(r.key) });
        return read(r);
      }
      // A fix ends a stretch of refusals: the next one is said again.
      look.release(r.key, 'readiness-fix', true);
      const result = await fix(r, intent.writes, look);
      look.changed();
      return result;
    },
  };
}
