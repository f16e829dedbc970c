import type { DeviceInfo, Support } from '../../../../cloud/types.js';
import type { Identity } from '../identity.js';
import type { Props } from '../parsers/getprop.js';

// One inventory probe: a section of the batched script (script.ts), the shell
// command that prints it, how fast its facts change (its tier), its pure
// parser, and how its reading fills DeviceInfo. The registry (registry.ts)
// lists them all; the script builder, the prober's tier cache, the assembler,
// the field table of docs/reference/device-info.md and the e2e fill-table read it.

/**
 * connection: cannot change while the device stays plugged and booted (read on
 *   the first inventory of a connection and after a reboot);
 * slow: changes when someone acts on the device (read every
 *   slowFactsRefreshSeconds, and when the agent invalidates them);
 * volatile: read on every inventory.
 */
export type Tier = 'connection' | 'slow' | 'volatile';

export const TIERS: readonly Tier[] = ['connection', 'slow', 'volatile'];

export interface Probe<T = unknown> {
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
  /** Why this command, for the field table of docs/reference/device-info.md. */
  note: string;
  /**
   * The system properties (getprop names) this probe's fill reads through
   * ctx.props. It sees only these; the property dump is read once per
   * connection and the prober keeps only what the probes declare, so a
   * property read but not declared would read as unset (a test checks the
   * list against what fill reads).
   */
  props?: readonly string[];
  /**
   * Pure: the section's text to this probe's reading; undefined when the
   * text holds none (the command failed or printed something else).
   */
  parse(text: string): T | undefined;
  /**
   * Sets the fields this probe owns (see `fields`). Runs on every assembly,
   * also when the section is absent (reading undefined): a field with a
   * fallback (deviceName, telephony) is still filled. Absent on probes whose
   * reading only feeds another probe's field (read through ctx.read).
   */
  fill?(info: DeviceInfo, reading: T | undefined, ctx: FillContext): void;
}

/** The settings an inventory depends on. */
export interface InventoryConfig {
  addedToCloud: boolean;
  support: Support;
  reachabilityHost?: string;
}

/** What a probe's fill sees besides its own reading. */
export interface FillContext {
  /** Another probe's reading in this assembly (each section parsed once). */
  read: <R>(probe: Probe<R>) => R | undefined;
  /**
   * The properties this probe declares (Probe.props), with this run's SIM
   * state where it was re-read; any other name reads as unset.
   */
  props: Props;
  identity: Identity;
  config: InventoryConfig;
  /** Host clock (epoch ms) when the script output had arrived. */
  observedAtMs?: number;
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
export function recordedCommand(probe: Probe<unknown>): string | undefined {
  if (typeof probe.command !== 'string') return undefined;
  return probe.command
    .replace(/^t /, '')
    .replace(/ 2>&1 \| keep .*$/, '')
    .trim();
}
