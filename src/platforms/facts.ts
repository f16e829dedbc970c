// The facts capability: what a platform read of a phone in its own inventory
// that no DeviceInfo field carries, for the layers above to show or act on
// without naming the platform (issue 41): the kernel's page size (a row
// field), whether the phone is under Advanced Protection (recovery), and how
// long it keeps this host's debugging authorization (its lapse warning). A
// fact the platform did not read, or does not have, is undefined: unknown,
// never a default.
import type { DeviceRegistry } from '../devices/registry.js';

export interface PlatformFacts {
  /** The kernel's memory page size in bytes on the device's current connection. */
  readonly pageSize: (registry: Pick<DeviceRegistry, 'facet'>, key: string) => number | undefined;
  /** Whether a locked phone would take a new USB connection as charge-only (Android 16's Advanced Protection): 'on' or 'off'. */
  readonly advancedProtection: (registry: Pick<DeviceRegistry, 'facet'>, key: string) => 'on' | 'off' | undefined;
  /**
   * How long after this host last saw it the phone keeps the host's
   * debugging authorization, in ms; 0: it never lapses.
   */
  readonly authorizationWindowMs: (registry: Pick<DeviceRegistry, 'facet'>, key: string) => number | undefined;
}
