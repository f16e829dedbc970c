import { BookingGate } from '../../../src/booking/gate.js';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { loadSettings } from '../../../src/config/load.js';
import type { HubPort } from '../../../src/config/hub-ports.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import type { UsbPlace } from '../../../src/devices/record.js';
import type { ChargeParts } from '../../../src/features/charge/charge.js';
import { chargeFeatureWith } from '../../../src/features/charge/feature.js';
import type { BookingStatusSource } from '../../../src/cloud/booking-status.js';
import { PowerPaths } from '../../../src/features/charge/power-paths.js';
import type { PortSwitch } from '../../../src/hub/uhubctl.js';
import type { Logger } from '../../../src/log/logger.js';
import type { AgentStats } from '../../../src/stats/agent-stats.js';
import { VirtualTime } from '../../support/virtual-time.js';
import type { PlatformFacts } from '../../../src/platforms/facts.js';
import { captureLogger } from '../../log/capture.js';
import { actionBed, featureContext } from '../../support/feature-bed.js';

export interface ChargeBedOptions extends Partial<ChargeParts> {
  logger?: Logger;
  booking?: BookingStatusSource;
  stats?: AgentStats;
  tickMs?: number;
  /** What the platforms read beyond DeviceInfo (Advanced Protection); default: Android's, from the tier cache. */
  facts?: PlatformFacts;
}

/**
 * Charge control on the real registry and booking gate, a virtual clock, a
 * cloud that says "not booked" and hub tools that note what they were asked
 * (`name hub:port power`) and always succeed. `hubPorts`: the settings'
 * hubPorts, as entries.
 */
export function chargeBed(env: NodeJS.ProcessEnv, hubPorts: Record<string, HubPort>, over: ChargeBedOptions = {}) {
  const time = new VirtualTime();
  const clock = time.clock({ seed: 1 });
  const registry = new DeviceRegistry();
  const switched: string[] = [];
  const tool = (name: string): PortSwitch => ({
    switch: (hub, port, power) => {
      switched.push(`${name} ${hub}:${port} ${power}`);
      return Promise.resolve('');
    },
  });
  const settings = loadSettings({ env, overrides: new Map([['hubPorts', Object.entries(hubPorts).map(([id, p]) => `${id}=${p.hub}:${p.port}`)]]) });
  const ctx = featureContext({
    settings,
    registry,
    clock,
    logger: over.logger ?? captureLogger().logger,
    ...(over.stats && { stats: over.stats }),
    ...(over.facts && { facts: over.facts }),
  });
  const parts: ChargeParts = {
    ports: over.ports ?? { uhubctl: tool('uhubctl'), command: tool('command') },
    powerPaths: over.powerPaths ?? new PowerPaths(),
    kept: over.kept,
  };
  const control = actionBed((c) => chargeFeatureWith(c, parts), ctx, {
    gate: new BookingGate({ cacheMs: 10_000, maxRequestsPerMinute: 4 }, clock),
    booking: over.booking ?? { ask: () => Promise.resolve({ booked: false }) },
    ...(over.tickMs !== undefined && { tickMs: over.tickMs }),
  });
  const places = new Map<string, UsbPlace>();
  /** A phone on adb that has just answered an inventory with its battery at this level (and what else `extra` says). */
  const answered = (serial: string, udid: string, percent: number, modelName?: string, extra: Partial<DeviceInfo> = {}): void => {
    registry.sync('android', new Map([...registry.list('android').map((r) => [r.serial, r.state] as const), [serial, 'device']]));
    // adb's long listing finds a USB phone behind the port mapped to it, as on a host wired as its hubPorts say.
    const place = hubPorts[udid] ?? hubPorts[serial];
    if (place) places.set(serial, { usb: usbPathBehind(place) });
    registry.setUsb('android', places);
    const info: DeviceInfo = {
      udid,
      serialNumber: serial,
      state: 'device',
      status: 'AVAILABLE',
      platformName: 'Android',
      isAndroid: true,
      isIos: false,
      ...(modelName && { modelName }),
      battery: { percentage: String(percent) },
      ...extra,
    };
    registry.readings.answered(`android/${serial}`, info, clock.wall(), clock.monotonic());
  };
  return { control, feature: control.feature, registry, switched, answered, clock, time, stats: ctx.stats };
}

/** The USB path adb gives a phone plugged straight into this hub port (uhubctl's 1-1.4 port 3: 1-1.4.3). */
export function usbPathBehind(place: HubPort): string {
  return place.hub.includes('-') ? `${place.hub}.${place.port}` : `${place.hub}-${place.port}`;
}
