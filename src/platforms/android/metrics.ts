// Android's own series in /metrics: what adb and the shell inventories alone know. The source hands them out
// (DeviceSource.metrics); the status folder only formats them.
import { gauge, type Metric } from '../../util/metric.js';
import type { DeviceProber } from './inventory/probe.js';
import type { Conflict } from '../../devices/claims.js';

interface AndroidFacts {
  /** adb's state of each device it lists now. */
  states: Iterable<string>;
  trackerAlive: boolean;
  roundTripMs: number | undefined;
  /** Whether the adb server answered its own round trip when last asked (undefined: not watched). */
  serverUp?: boolean;
  probes: DeviceProber['counters'];
  /** Serials adb lists more than once, with how many devices share each. */
  duplicateSerials: ReadonlyMap<string, number>;
  /** udids that different phones give, with the serials of those phones. */
  sharedUdids: ReadonlyMap<string, readonly string[]>;
  /** Identities claimed by more than one device listed now: no host action is taken for those devices. */
  conflicts?: readonly Conflict[];
}

export function androidMetrics(facts: AndroidFacts): Metric[] {
  return [
    {
      name: 'device_agent_devices',
      help: 'Devices the adb server knows, by adb state.',
      type: 'gauge',
      samples: [...Map.groupBy(facts.states, (state) => state)].map(([state, all]) => ({ labels: { state }, value: all.length })),
    },
    {
      name: 'device_agent_duplicate_serial_devices',
      help: 'Devices adb lists under one serial, for serials listed more than once: all but one of them go unreported.',
      type: 'gauge',
      samples: [...facts.duplicateSerials].map(([serial, value]) => ({ labels: { serial }, value })),
    },
    {
      name: 'device_agent_shared_udid_devices',
      help: 'Phones that give one udid under different adb serials, for udids given more than once: all but one go unreported.',
      type: 'gauge',
      samples: [...facts.sharedUdids].map(([udid, serials]) => ({ labels: { udid }, value: serials.length })),
    },
    {
      name: 'device_agent_identity_conflict_devices',
      help: 'Devices that claim one identity (kind shared_udid: one udid; shared_serial: one adb serial), by the identity: no port power, charge pause or transport kick is done for them.',
      type: 'gauge',
      samples: (facts.conflicts ?? []).map((c) => ({ labels: { kind: c.kind, id: c.id }, value: c.devices })),
    },
    gauge('device_agent_adb_tracker_up', 'Whether adb device tracking is connected.', facts.trackerAlive ? 1 : 0),
    gauge(
      'device_agent_adb_server_up',
      "Whether the adb server answers: 0 while nothing answers as adb at its address, or its own round trip (host:version) failed when an inventory failure asked it; 0 blames the host's server, not the phones.",
      facts.serverUp === undefined ? undefined : facts.serverUp ? 1 : 0,
    ),
    gauge(
      'device_agent_adb_roundtrip_seconds',
      'Duration of the last device-list round trip to the adb server.',
      facts.roundTripMs === undefined ? undefined : facts.roundTripMs / 1000,
    ),
    {
      name: 'device_agent_shell_sessions_total',
      help: 'adb shell sessions opened for inventories.',
      type: 'counter',
      samples: [{ value: facts.probes.shellSessions }],
    },
    {
      name: 'device_agent_shell_bytes_read_total',
      help: 'Bytes read from device shell sessions.',
      type: 'counter',
      samples: [{ value: facts.probes.bytesRead }],
    },
  ];
}
