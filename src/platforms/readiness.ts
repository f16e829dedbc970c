// What a platform offers the readiness feature, so that the feature judges readings and names no platform: the
// platform reads and words the values, the feature selects devices by what the reader answers.
import type { DeviceRegistry } from '../devices/registry.js';

/** The values a lab's baseline judges, as a platform read them. */
export interface ReadinessReading {
  /** Each namespace whose `settings list` exited 0, with its rows as printed: a key absent here is unread, never defaulted. */
  settings: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /**
   * The namespaces whose list was read whole (its exit status 0, and rows
   * counted: a list that cannot list prints none), each with the keys it
   * printed more than once: a key absent from a whole list is no row of the
   * phone's, which the framework's reader takes at its default; a key
   * printed twice is unread all the same.
   */
  whole?: ReadonlyMap<string, ReadonlySet<string>>;
  /** Whether the keyguard asks for a PIN, pattern or password; undefined when not read. */
  keyguardSecure?: boolean;
  /** The properties asked for, as read: '' for one the phone does not set. */
  props: ReadonlyMap<string, string>;
}

export interface ReadinessReader {
  /** The platform whose phones it reads (DeviceInfo.platformName): one of them its source no longer lists is judged by why. */
  readonly platformName: string;
  /** A build for people, from its version and build id. */
  readonly buildName: (release: string, id: string | undefined) => string;
  /** The reading of the device's current connection, from what its inventory already read; undefined when it read none (a device of another platform). */
  readonly reading: (registry: Pick<DeviceRegistry, 'facet'>, key: string) => ReadinessReading | undefined;
  /** The build fingerprint of the device's current connection, trimmed; undefined when not read or blank. */
  readonly fingerprint: (registry: Pick<DeviceRegistry, 'facet'>, key: string) => string | undefined;
}
