// Every source's collect run the same way (node_exporter's execute() is the
// model): timed, bounded, counted as a success or a failure, and a source
// that throws or does not answer in time does not take the report down with
// it: its devices go out with their last inventories, in their last known
// state, and a message naming the failure as the host's, and the report is not taken as a complete listing.
import { withNotes } from '../cloud/device-message.js';
import type { DeviceInfo } from '../cloud/types.js';
import type { DeviceRegistry } from '../devices/registry.js';
import { limited } from '../log/limited.js';
import type { Logger } from '../log/logger.js';
import type { CollectRequest, DeviceSource } from '../platforms/source.js';
import type { Clock, Timers } from '../util/clock.js';
import type { SourceRun } from '../status/stats.js';

export interface Executed {
  devices: DeviceInfo[];
  /** The source answered: its devices are what it said, and an absent one is absent. */
  ok: boolean;
  run: SourceRun;
}

export interface ExecuteOptions {
  registry: Pick<DeviceRegistry, 'list'>;
  clock: Clock & Timers;
  logger: Logger;
  /** How long a collect may take; none: as long as it takes (a one-shot command waits for every inventory). */
  timeoutMs: number | undefined;
}

class CollectTimeout extends Error {
  constructor(ms: number) {
    super(`it did not answer within ${Math.round(ms / 1000)} s`);
  }
}

export async function execute(source: DeviceSource, request: CollectRequest, o: ExecuteOptions): Promise<Executed> {
  const t0 = o.clock.monotonic();
  let timer: { cancel(): void } | undefined;
  try {
    const collecting = source.collect(request);
    const devices =
      o.timeoutMs === undefined
        ? await collecting
        : await Promise.race([
            collecting,
            new Promise<never>((_, reject) => (timer = o.clock.setTimer(() => reject(new CollectTimeout(o.timeoutMs!)), o.timeoutMs!, { unref: true }))),
          ]);
    return { devices, ok: true, run: { durationMs: o.clock.monotonic() - t0, ok: true } };
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    // The host's side failed, not the devices: each keeps its last known state (issue 34), and its message names the cause.
    const message = `the agent could not read its ${source.platform} devices (${source.label}: ${text}); a fault on the agent host's side, not known to be the device's: this is the device's last known state`;
    limited(o.logger).warn(
      'source-collect-failed',
      { source: source.platform, err: text },
      `collecting the ${source.platform} devices failed (${source.label}: ${text}); the report carries their last inventories and calls none of them gone`,
      source.platform,
    );
    const devices = o.registry.list(source.platform).flatMap((r) => (r.last ? [withNotes(r.last, [message])] : []));
    return { devices, ok: false, run: { durationMs: o.clock.monotonic() - t0, ok: false } };
  } finally {
    timer?.cancel();
  }
}
