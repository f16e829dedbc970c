// What the cloud is told of a phone whose platform's service (the adb server, usbmuxd) does not answer: UNAVAILABLE from
// the first report after the agent heard it stop (the change wakes one within the change debounce), blamed on the host,
// so that the cloud books no phone the host cannot reach and the report says what the in-service clock counts. A restart
// quicker than the debounce is never told; one that lasts is, once.
import { withNotes } from '../cloud/device-message.js';
import { STATUS_UNAVAILABLE, type DeviceInfo } from '../cloud/types.js';
import type { Timeline } from '../devices/timeline.js';
import type { DeviceSource } from '../platforms/source.js';
import type { Clock } from '../util/clock.js';

/** The devices with each phone of a platform whose service is down now sent UNAVAILABLE, saying why and since when. */
export function withServiceDown(
  devices: readonly DeviceInfo[],
  sources: ReadonlyArray<Pick<DeviceSource, 'platform' | 'label'>>,
  timeline: Pick<Timeline, 'downSince'>,
  clock: Pick<Clock, 'wall' | 'monotonic'>,
  /** The devices whose message already names their source's failure (carried for it). */
  said: ReadonlySet<string> = new Set(),
) {
  const down = new Map(
    sources.flatMap((s) => {
      const since = timeline.downSince(s.platform);
      return since === undefined ? [] : [[s.platform, { label: s.label, wall: clock.wall() - (clock.monotonic() - since) }] as const];
    }),
  );
  return devices.map((d) => {
    const service = down.get(d.platformName.toLowerCase() as DeviceSource['platform']);
    if (!service) return d;
    const since = new Date(service.wall).toISOString().slice(11, 19);
    const note = `${service.label} has not answered since ${since}Z: a fault on this host, not the phone's; it is back in service once the server answers`;
    return withNotes({ ...d, status: STATUS_UNAVAILABLE }, said.has(d.udid) ? [] : [note]);
  });
}
