import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { HubBed } from '../hub/hub-bed.js';
import { DaemonBed } from './daemon-bed.js';

/** The stand-in uhubctl the agent runs (recovery.powerCycleCommand). */
export const standIn = fileURLToPath(new URL('../hub/uhubctl', import.meta.url));

/**
 * A daemon bed with a hub bed beside it, started before the file's tests and
 * stopped after them, the agent and devices reset after each: the tests that
 * switch hub ports (power cycles, charge pauses) share it.
 */
export function hubDaemonBed(profile?: string): { bed: DaemonBed; hub: HubBed } {
  const bed = new DaemonBed(profile);
  const hub = new HubBed();
  beforeAll(async () => {
    await bed.start();
    await hub.start();
  });
  afterEach(() => bed.reset());
  afterAll(async () => {
    await bed.stop();
    await hub.stop();
  });
  return { bed, hub };
}

/**
 * The daemon's settings of the power-cycle tests: one network phone the
 * agent connects, on hub 1-1.4 port 3; a report every 2 s, short deadlines
 * and cooldowns, and power cycling through the stand-in.
 */
export function powerCycleEnv(hub: HubBed, serial: string, udid: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...hub.env,
    DEVICE_AGENT_NETWORK_DEVICES: serial,
    DEVICE_AGENT_HUB_PORTS: `${udid}=1-1.4:3`,
    DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
    DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
    DEVICE_AGENT_PROBE_TIMEOUT_SECONDS: '2',
    DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '2',
    DEVICE_AGENT_RECOVERY_KICK_COOLDOWN_SECONDS: '10',
    DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '2',
    DEVICE_AGENT_RECOVERY_POWER_CYCLE: 'true',
    DEVICE_AGENT_RECOVERY_POWER_CYCLE_COMMAND: standIn,
    ...extra,
  };
}
