import type { DeviceInfo } from '../../cloud/types.js';

// One inventory probe: a section of the batched script (script.ts), the shell
// command that prints it, how fast its facts change (its tier), and the
// DeviceInfo fields it feeds. The registry (registry.ts) lists them all; the
// script builder, the prober's tier cache, the README field table and the e2e
// fill-table read it.

/**
 * connection: cannot change while the device stays plugged and booted (read on
 *   the first inventory of a connection and after a reboot);
 * slow: changes when someone acts on the device (read every
 *   slowFactsRefreshSeconds, and when the agent invalidates them);
 * volatile: read on every inventory.
 */
export type Tier = 'connection' | 'slow' | 'volatile';

export const TIERS: readonly Tier[] = ['connection', 'slow', 'volatile'];

export interface Probe {
  /** Section name in the script output: lower-case letters, digits and _. */
  section: string;
  /**
   * Shell line; `t CMD` runs CMD under `timeout` where the device has one,
   * `CMD | keep PATTERN...` prints only the lines matching one of the shell
   * patterns (script.ts). A function may leave the probe out (undefined).
   */
  command: string | ((ctx: ProbeContext) => string | undefined);
  tier: Tier;
  /** DeviceInfo fields (dotted paths) this section feeds. */
  fields: readonly string[];
  /**
   * Whether a DeviceInfo shows this probe's reading, given that the device
   * answered the command with a real output (the e2e fill-table checks it on
   * every recorded profile). Absent where no single field tells.
   */
  filled?: (info: DeviceInfo) => boolean;
  /**
   * Whether an output of a cached tier is a reading worth keeping; a later
   * output that is not (the service was busy, `pm` failed) leaves the last
   * good one in the cache. Any output counts when absent.
   */
  good?: (text: string) => boolean;
  /**
   * What of a good output the per-device cache keeps, when less than the
   * whole text still assembles the same fields (memory: 200 devices).
   */
  shrink?: (text: string) => string;
  /** Why this command, for the README table. */
  note: string;
}

export interface ProbeContext {
  /** Host to ping; the ping probe is left out when absent or unsafe. */
  reachabilityHost?: string;
}

/**
 * The command line a device recording is keyed by: the probe's command
 * without the `t` wrapper, the output filter and the redirection. Undefined
 * for commands built from settings (ping).
 */
export function recordedCommand(probe: Probe): string | undefined {
  if (typeof probe.command !== 'string') return undefined;
  return probe.command
    .replace(/^t /, '')
    .replace(/ 2>&1 \| keep .*$/, '')
    .trim();
}
