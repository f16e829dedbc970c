// iPhones' developer services on this host (developer.ts) under the feature
// contract: a note in the message of an iPhone from iOS 17 that is not
// ready here (a stale or missing tunnel, a daemon down, its iOS not
// supported by the host's tools), Appium off for it, a TUNNEL column in
// `list`, counts on /metrics. Reads only: it never starts, refreshes or
// deletes a tunnel.
import type { Feature, FeatureContext } from '../context.js';
import type { DaemonKind } from './daemons.js';
import { IosDeveloper } from './developer.js';
import { iosDeveloperItems } from './doctor.js';
import type { ToolName } from './support.js';

/** A `kind=value` setting's two halves. */
const halves = (entry: string): [string, string] => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)];

export function iosDeveloperFeature(ctx: FeatureContext): Feature {
  const s = ctx.settings.iosDeveloper;
  const part = new IosDeveloper({
    // iOS off altogether (`ios: false`): nothing to judge.
    daemons: (ctx.settings.ios === false ? [] : s.tunnelDaemons).map((id) => {
      const [kind, url] = halves(id);
      return { id, kind: kind as DaemonKind, url };
    }),
    pollMs: s.pollSeconds * 1000,
    tools: s.tools.map((entry) => {
      const [tool, command] = halves(entry);
      return { tool: tool as ToolName, command };
    }),
    registry: ctx.registry,
    logger: ctx.logger,
    clock: ctx.clock,
  });
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
