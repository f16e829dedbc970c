// Charge control as the report sees it: a phone whose port is off on purpose is off adb, yet reported UNAVAILABLE with
// its last inventory and why (owed in the presence ledger), never UNPLUGGED. A port found not to cut power says so in
// the phone's message and is counted in /metrics.
import { join } from 'node:path';
import { PortCommand } from './port-command.js';
import { hubToolItems } from '../../hub/tool-doctor.js';
import { named } from '../../platforms/doctor.js';
import type { Feature, FeatureContext } from '../context.js';
import { CHARGE_ENDS, CHARGE_PAUSES, CHARGE_POWER_CHECKS, CHARGE_SWITCHES, chargeControl, type ChargeParts } from './charge.js';
import { pausedPortsFile } from './paused-ports.js';
import { withChargePauses } from './paused-report.js';
import { ChargePauses } from './pauses.js';
import { PowerPaths, uncutPortsFile } from './power-paths.js';
import { chargeRow } from './row.js';
import { utcText } from '../../util/clock.js';

/** Charge control's files in the state directory: the ports it holds off (for a start after a crash), and those found not to cut power. */
export const PAUSED_PORTS_FILE = 'charge-paused-ports.json';
export const UNCUT_PORTS_FILE = 'charge-uncut-ports.json';

export function chargeFeature(ctx: FeatureContext) {
  const { stateDir, logger, settings } = ctx;
  return chargeFeatureWith(ctx, {
    ports: { uhubctl: ctx.uhubctl, ...(settings.charge.command && { command: new PortCommand(settings.charge.command) }) },
    powerPaths: new PowerPaths(stateDir === undefined ? undefined : uncutPortsFile(join(stateDir, UNCUT_PORTS_FILE), logger)),
    kept: stateDir === undefined ? undefined : pausedPortsFile(join(stateDir, PAUSED_PORTS_FILE), logger),
  });
}

/** The feature on the parts the factory makes of the context (a test hands its own hub tools and files). */
export function chargeFeatureWith(ctx: FeatureContext, parts: ChargeParts): Feature {
  const { registry } = ctx;
  const { powerPaths } = parts;
  return {
    name: 'charge-control',
    ...chargeRow(registry, ctx.mapping),
    // Built even with no phone listed in charge.ways: ports a crashed run left off must be switched on after charge control was turned off too.
    action: chargeControl(ctx, parts),
    notes: (device) =>
      powerPaths
        .uncutFor(device.udid)
        .map(
          (p) =>
            `hub ${p.hub} port ${p.port} does not cut power when switched off (${p.seen}, ${utcText(p.atWall)}): ` +
            'charge control no longer pauses this phone there; a hub with real per-port power switching would',
        ),
    // The operator's own hub tool, for the `command` way.
    doctor: { config: async (env) => named('hub.tool', await hubToolItems(ctx.settings, env, 'charge.command')) },
    // After health: a paused phone's last reading is not a new one to judge.
    annotate: (devices, carried) => withChargePauses(devices, new ChargePauses(registry, ctx.platforms.phones.platform), carried ?? new Map()),
    counters: [CHARGE_PAUSES, CHARGE_ENDS, CHARGE_POWER_CHECKS, CHARGE_SWITCHES],
    metrics: () => powerPaths.metrics(),
  };
}
