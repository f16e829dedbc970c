// iPhones' developer services on this host (developer.ts) under the feature
// contract: a note in the message of an iPhone from iOS 17 that is not
// ready here (a stale or missing tunnel, a daemon down, its iOS not
// supported by the host's tools), Appium off for it, a TUNNEL column in
// `list`, counts on /metrics. Reads only: it never starts, refreshes or
// deletes a tunnel.
import type { Feature, FeatureContext } from '../context.js';
import { IosDeveloper } from './developer.js';
import { iosDeveloperItems } from './doctor.js';
import { TUNNEL } from '../../devices/verdicts.js';

export function iosDeveloperFeature(ctx: FeatureContext): Feature {
  const part = new IosDeveloper(ctx);
  return {
    name: 'ios-developer',
    start: () => part.start(),
    stop: () => part.stop(),
    answered: (device) => part.answered(device),
    columns: () => (part.off ? [] : [{ key: 'tunnel', title: 'TUNNEL' }]),
    cells: (info): Record<string, string> => {
      const j = ctx.registry.timeline.verdictBy(info.udid, TUNNEL)?.detail;
      return j ? { tunnel: j.cell } : {};
    },
    metrics: () => part.metrics(),
    tallies: (rows) => part.tallies(rows.map((r) => r.udid)),
    gauges: () => [
      {
        name: 'device_agent_device_ios_tunnel',
        help: 'An iPhone from iOS 17 of the last report by its developer services on this host (live, stale, none, unknown, no-daemon, not-supported), by udid: which phone a stale tunnel is.',
        samples: (r) => {
          const j = ctx.registry.timeline.verdictBy(r.udid, TUNNEL)?.detail;
          return j ? [{ labels: { udid: r.udid, state: j.state }, value: 1 }] : [];
        },
      },
    ],
    doctor: { config: () => iosDeveloperItems(part) },
  };
}
