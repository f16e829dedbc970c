// Charge control as the report sees it: a phone whose port is off on purpose
// is off adb, yet reported (UNAVAILABLE with its last inventory and why,
// never UNPLUGGED: owed in the presence ledger, paused-report.ts), and no
// other reader reports it for it.
// A phone on a hub port found not to cut power says so in its message, and
// the ports and the checks are counted in /metrics (power-paths.ts), beside
// the pauses and switches charge.ts counts (counts.ts). What the views show
// of it is row.ts's; its action (charge.ts) is built from the parts every
// action shares.
import type { DeviceFeature } from '../../devices/feature.js';
import type { PhoneControl } from '../../devices/control.js';
import { PortCommand } from '../../hub/port-command.js';
import type { ActionParts } from '../parts.js';
import { ChargeControl } from './charge.js';
import type { PausedPortsKeeper } from './paused-ports.js';
import type { DeviceMapping } from '../device-mapping.js';
import { chargeRow } from './row.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import { chargeEntries } from '../../hub/charge-pauses.js';
import { utcText } from '../../util/clock.js';
import { withChargePauses } from './paused-report.js';
import type { PowerPaths } from './power-paths.js';
import type { AgentStats } from '../../stats/agent-stats.js';
import { CHARGE_ENDS, CHARGE_PAUSES, CHARGE_SWITCHES } from './counts.js';

export interface ChargeFeatureOptions {
  /** The hub ports found not to cut power, kept across restarts (the state directory). */
  powerPaths?: PowerPaths;
  /** Where the ports held off are kept across a crash (the state directory). */
  kept?: PausedPortsKeeper;
  /** The actions' look-up of a device's way, for its row. */
  mapping?: DeviceMapping;
}

export function chargeFeature(
  registry: Pick<DeviceRegistry, 'facet'>,
  stats: Pick<AgentStats, 'counter'>,
  { powerPaths, kept, mapping }: ChargeFeatureOptions = {},
): DeviceFeature<ActionParts<PhoneControl>> {
  return {
    name: 'charge-control',
    ...chargeRow(registry, mapping),
    // Built even with no phone listed in charge.ways: ports a crashed run left
    // off must be switched on after charge control was turned off too.
    action: {
      actsOn: 'power',
      build: (p) =>
        new ChargeControl({
          runner: p.runner,
          phones: p.phones,
          registry: p.registry,
          settings: p.settings,
          hubPorts: p.hubPorts,
          mapping: p.mapping,
          ports: { uhubctl: p.uhubctl, ...(p.settings.charge.command && { command: new PortCommand(p.settings.charge.command) }) },
          gate: p.gate,
          booking: p.booking,
          stats: p.stats,
          logger: p.logger,
          clock: p.clock,
          ...(kept && { kept }),
          ...(powerPaths && { powerPaths }),
        }),
    },
    notes: (device) =>
      device.udid === undefined
        ? []
        : (powerPaths?.uncutFor(device.udid) ?? []).map(
            (p) =>
              `hub ${p.hub} port ${p.port} does not cut power when switched off (${p.seen}, ${utcText(p.atWall)}): ` +
              'charge control no longer pauses this phone there; a hub with real per-port power switching would',
          ),
    // After health: a paused phone's last reading is not a new one to judge.
    annotate: (devices, carried) => withChargePauses(devices, { entries: () => chargeEntries(registry) }, carried ?? new Map()),
    metrics: () => [...[CHARGE_PAUSES, CHARGE_ENDS, CHARGE_SWITCHES].map((key) => stats.counter(key).metric()), ...(powerPaths?.metrics() ?? [])],
  };
}
