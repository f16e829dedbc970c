// Every inventory probe, in script order. The uptime probe stays last: the
// agent dates the boot by its own clock when the output arrives (uptime.ts).
import { battery } from './battery.js';
import { bluetoothName } from './bluetooth-name.js';
import { deviceName } from './device-name.js';
import { df } from './df.js';
import { id } from './id.js';
import { imei } from './imei.js';
import { ip } from './ip.js';
import { meminfo } from './meminfo.js';
import { orientation } from './orientation.js';
import { packages } from './packages.js';
import { ping } from './ping.js';
import { props } from './props.js';
import { readinessGlobal, readinessKeyguard, readinessSystem } from './readiness.js';
import { proxy } from './proxy.js';
import { simState } from './sim-state.js';
import { su } from './su.js';
import { telephony } from './telephony.js';
import type { Probe, Tier } from './types.js';
import { uptime } from './uptime.js';
import { wmDensity } from './wm-density.js';
import { wmSize } from './wm-size.js';
import { wearFiles, wearPackages, wearTradeIn } from './wear.js';

export const PROBES: readonly Probe<unknown>[] = [
  props,
  imei,
  simState,
  id,
  su,
  deviceName,
  bluetoothName,
  proxy,
  wmDensity,
  packages,
  readinessGlobal,
  readinessSystem,
  readinessKeyguard,
  wearFiles,
  wearPackages,
  wearTradeIn,
  battery,
  df,
  meminfo,
  wmSize,
  orientation,
  ip,
  telephony,
  ping,
  uptime,
];

export function probesOf(tiers: Iterable<Tier>): Probe[] {
  const wanted = new Set(tiers);
  return PROBES.filter((probe) => wanted.has(probe.tier));
}

/** Every property some probe declares (Probe.props): all the prober keeps of a property dump. */
export const DECLARED_PROPS: readonly string[] = [...new Set(PROBES.flatMap((probe) => probe.props ?? []))];
