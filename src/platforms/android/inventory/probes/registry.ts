// Every inventory probe, in script order. The uptime probe stays last: the
// agent dates the boot by its own clock when the output arrives (resources.ts).
import { battery, df, meminfo, uptime } from './resources.js';
import { advancedProtection, bluetoothName, deviceName, id, packages, pageSize, props, su } from './device.js';
import { imei, simState, telephony } from './telephony.js';
import { ip, ping, proxy } from './network.js';
import { orientation, wmDensity, wmSize } from './display.js';
import { readinessGlobal, readinessKeyguard, readinessSystem } from './readiness.js';
import type { Probe, Tier } from './types.js';
import { wearFiles, wearPackages, wearTradeIn } from './wear.js';

export const PROBES: readonly Probe[] = [
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
  advancedProtection,
  pageSize,
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

export function probesOf(tiers: Iterable<Tier>) {
  const wanted = new Set(tiers);
  return PROBES.filter((probe) => wanted.has(probe.tier));
}

/** Every property some probe declares (Probe.props): all the prober keeps of a property dump. */
export const DECLARED_PROPS: readonly string[] = [...new Set(PROBES.flatMap((probe) => probe.props ?? []))];
