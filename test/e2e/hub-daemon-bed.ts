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
