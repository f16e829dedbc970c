// Every source's collect run the same way (node_exporter's execute()): timed, bounded, counted, and a source that throws
// or does not answer in time does not take the report down: its devices are owed in the presence ledger with their last
// inventories and state and a message naming the host's fault, and the listing is not complete. The features' notes
// join each device's message here, after its source's word.
import { withNotes } from '../cloud/device-message.js';
import type { DeviceFeature } from '../devices/feature.js';
import { notesOf } from './notes.js';
import { boundDevice, clippedNote } from './field-limits.js';
import type { DeviceInfo } from '../cloud/types.js';
import type { DeviceRegistry } from '../devices/registry.js';
import type { PresenceLedger, PresenceReason } from '../devices/presence.js';
import { limited } from '../log/limited.js';
import type { Logger } from '../log/logger.js';
import { SourceUnreachableError, type CollectRequest, type DeviceSource } from '../platforms/source.js';
import type { Clock, Timers } from '../util/clock.js';
import { errorText } from '../util/error-text.js';

export interface ExecuteOptions {
  registry: Pick<DeviceRegistry, 'list' | 'get'>;
  /** What acts on devices, in registration order: their notes join each device's message after the source's word. */
  features: readonly DeviceFeature[];
  /** Where a failed source's devices are owed until it answers again, and a source's own owed devices while it answers. */
  presence: Pick<PresenceLedger, 'owe' | 'end' | 'replace'>;
  clock: Clock & Timers;
  logger: Logger;
  /** How long a collect may take; none: as long as it takes (a one-shot command waits for every inventory). */
  timeoutMs: number | undefined;
}

/** A collect that did not answer in time. */
const late = (ms: number) => new Error(`it did not answer within ${Math.round(ms / 1000)} s`);

/** Why a failed source's devices are carried: one entry per source, which its next answer ends. */
function sourceFailed(source: Pick<DeviceSource, 'platform'>): PresenceReason {
  return { kind: 'source-failed', scope: source.platform };
}

export async function execute(source: DeviceSource, request: CollectRequest, o: ExecuteOptions) {
  const t0 = o.clock.monotonic();
  let timer: { cancel(): void } | undefined;
  try {
    const collecting = source.collect(request);
    const devices =
      o.timeoutMs === undefined
        ? await collecting
        : await Promise.race([
            collecting,
            new Promise<never>((_, reject) => (timer = o.clock.setTimer(() => reject(late(o.timeoutMs!)), o.timeoutMs!, { unref: true }))),
          ]);
    o.presence.end(sourceFailed(source));
    const notes = notesOf(source.platform, o);
    // Read right after its own answer: what this collect owes, noted as its list is (its scope is its record's key).
    const owed = (source.owed?.() ?? []).map((e) => ({
      ...e,
      devices: e.devices.map((d) => ({ ...d, notes: [...(d.notes ?? []), ...notes(e.reason.scope)] })),
    }));
    if (source.owes) o.presence.replace(source.platform, source.owes, owed);
    const noted = devices.map((d) => withNotes(d.info, notes(d.key)));
    return { devices: bounded(noted, source.platform, o.logger), run: { durationMs: o.clock.monotonic() - t0, ok: true } };
  } catch (err) {
    const text = errorText(err);
    // The host's side failed, not the devices: each keeps its last known state (issue 34), and its message names the cause.
    const message = `the agent could not read its ${source.platform} devices (${source.label}: ${text}); a fault on the agent host's side, not known to be the device's: this is the device's last known state`;
    // A source whose service cannot be reached said so in its own line when it found it out: not again at each report.
    if (!(err instanceof SourceUnreachableError))
      limited(o.logger).warn(
        'source-collect-failed',
        { source: source.platform, err: text },
        `collecting the ${source.platform} devices failed (${source.label}: ${text}); the report carries their last inventories and calls none of them gone`,
        source.platform,
      );
    const devices = o.registry.list(source.platform).flatMap((r) => (r.last ? [{ udid: r.last.udid, key: r.key, notes: [message] }] : []));
    // Replaced at each failure, ended by the next answer: the report asks the ledger for them, with their last inventories.
    o.presence.owe(sourceFailed(source), devices, { while: `${source.label} fails` });
    // What the source owed of its own was carried only while it answered, as its list was: not now.
    if (source.owes) o.presence.replace(source.platform, source.owes, []);
    return { devices: [], error: text, run: { durationMs: o.clock.monotonic() - t0, ok: false } };
  } finally {
    timer?.cancel();
  }
}

/**
 * Every value within its size (field-limits.ts), where a source's devices and the ledger's enter the report: all later
 * readers see what leaves here. A clipped device says so; one whose identity is over its limit is left out; one line each.
 */
export function bounded(devices: DeviceInfo[], platform: string, logger: Logger) {
  return devices.flatMap((info) => {
    const b = boundDevice(info);
    if ('refused' in b) {
      // Its own udid may be the oversized value: the line names its start only.
      const udid = String(info.udid);
      const who = udid.length > 64 ? `${udid.slice(0, 64)}…` : udid;
      limited(logger).warn(
        'device-identity-over-limit',
        { platform, udid: who },
        `a ${platform} device (${who}) is left out of the report: ${b.refused}. Check what the phone or USB gadget on this host calls itself`,
        who,
      );
      return [];
    }
    if (!b.clipped.length) return [b.info];
    limited(logger).warn(
      'device-field-clipped',
      { udid: b.info.udid, fields: b.clipped },
      `device ${b.info.udid} gave values longer than the agent sends (${b.clipped.join(', ')}); they are clipped in its report, state, /metrics and list`,
      b.info.udid,
    );
    return [withNotes(b.info, [clippedNote(b.clipped)])];
  });
}
