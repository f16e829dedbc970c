// iPhones' developer services on this host (developer.ts) under the feature
// contract: a note in the message of an iPhone from iOS 17 that is not
// ready here (a stale or missing tunnel, a daemon down, its iOS not
// supported by the host's tools), Appium off for it, a TUNNEL column in
// `list`, counts on /metrics. Reads only: it never starts, refreshes or
// deletes a tunnel.
import type { Feature, FeatureContext } from '../context.js';
import { IosDeveloper } from './developer.js';
import { iosDeveloperItems } from './doctor.js';

export function iosDeveloperFeature(ctx: FeatureContext): Feature {
  const part = new IosDeveloper(ctx);
  return {
    name: 'ios-developer',
    start: () => part.start(),
    stop: () => part.stop(),
    notes: (device) => [part.judgementOf(device)?.note],
    answered: (device) => part.answered(device),
    annotate: (devices) => part.annotate(devices),
    columns: () => (part.off ? [] : [{ key: 'tunnel', title: 'TUNNEL' }]),
    cells: (_info, device): Record<string, string> => {
      const j = device && part.judgementOf(device);
      return j ? { tunnel: j.cell } : {};
    },
    metrics: () => part.metrics(),
    doctor: { config: () => iosDeveloperItems(part) },
  };
}
