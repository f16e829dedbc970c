import type { DeviceInfo, Support } from '../../../../cloud/types.js';
import type { Identity } from '../identity.js';
import type { Props } from '../parsers/getprop.js';

// One inventory probe: a section of the batched script, the command that prints it, its tier, its pure parser, and how
// its reading fills DeviceInfo. The registry (registry.ts) lists them all; everything else reads that list.

/**
 * connection: cannot change while the device stays plugged and booted (read on
 *   the first inventory of a connection and after a reboot);
 * slow: changes when someone acts on the device (read every
 *   slowFactsRefreshSeconds, and when the agent invalidates them);
 * volatile: read on every inventory.
 */
export const TIERS = ['connection', 'slow', 'volatile'] as const;

export type Tier = (typeof TIERS)[number];

export interface Probe<T = unknown> {
  /** Section name in the script output: lower-case letters, digits and _. */
  section: string;
  /**
   * Shell line; `t CMD` runs CMD under `timeout` where the device has one, `CMD | keep PATTERN...` prints only the
   * lines matching one of the shell patterns (script.ts). A function may leave the probe out (undefined).
   */
  command: string | ((ctx: ProbeContext) => string | undefined);
  tier: Tier;
  /** DeviceInfo fields (dotted paths) this section feeds. */
  fields: readonly string[];
  /** Whether a cached tier's output is worth keeping; one that is not (`pm` failed) leaves the last good one cached. */
  good?: (text: string) => boolean;
  /** What of a good output the per-device cache keeps, when less still assembles the same fields (memory: 200 devices). */
  shrink?: (text: string) => string;
  /** Why this command, for the field table of docs/reference/device-info.md. */
  note: string;
  /**
   * The properties this probe's fill reads through ctx.props: only these are kept of the dump, so a property read but
   * not declared reads as unset (a test checks the list against what fill reads).
   */
  props?: readonly string[];
  /** Pure: the section's text to this probe's reading; undefined when the text holds none. */
  parse(text: string): T | undefined;
  /**
   * Sets the fields this probe owns, on every assembly, also when the section is absent (a field with a fallback is
   * still filled). Absent on probes whose reading feeds another probe's field.
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
  /** The properties this probe declares (Probe.props), with this run's SIM state where it was re-read; any other name reads as unset. */
  props: Props;
  identity: Identity;
  config: InventoryConfig;
  /** Host clock (epoch ms) when the script output had arrived. */
  observedAtMs?: number;
}

interface ProbeContext {
  /** Host to ping; the ping probe is left out when absent or unsafe. */
  reachabilityHost?: string;
}
