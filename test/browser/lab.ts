// What the status page's browser tests set a lab up with: phones ready for automation on the default baseline, a day
// of in-service history kept in the state directory as the daemon keeps it, and the daemon's status address.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AVAILABILITY_FILE, clockText, type StoredPhone } from '../../src/features/availability/store.js';
import { HOUR_MS, Tally } from '../../src/features/availability/tally.js';
import type { AgentProcess } from '../e2e/agent-process.js';
import { loadProfile, withProps, withSerial, type Profile } from '../sim/profile.js';

const fixture = (name: string): string => readFileSync(new URL(`../features/readiness/fixtures/${name}`, import.meta.url), 'utf8');

/** The recorded global settings edited to meet every default check (as test/e2e/readiness.test.ts does). */
export const READY_GLOBAL = fixture('lineage18-sm-a520f-global.txt')
  .replace('stay_on_while_plugged_in=0', 'stay_on_while_plugged_in=7')
  .replace(/^(window|transition)_animation_scale=1\.0$/gm, '$1_animation_scale=0')
  .replace('animator_duration_scale=1.0', 'animator_duration_scale=0')
  .replace('ota_disable_automatic_update=0', 'ota_disable_automatic_update=1')
  .replace('usb_mass_storage_enabled=1', 'usb_mass_storage_enabled=1\nverifier_verify_adb_installs=0');

/** A recorded Pixel 8 Pro answering readiness's reads with `global`, under this serial, with these properties. */
export function readyPhone(serial: string, global = READY_GLOBAL, props: Record<string, string> = {}): Profile {
  const base = withProps(withSerial(loadProfile('pixel-8-pro'), serial), props);
  const commands = new Map(base.commands);
  commands.set('settings list global', { output: global, exitCode: 0 });
  commands.set('settings list system', { output: fixture('lineage18-sm-a520f-system.txt'), exitCode: 0 });
  commands.set('dumpsys window policy', { output: fixture('dumpsys-window-policy-keyguard.txt'), exitCode: 0 });
  return { ...base, commands };
}

/**
 * A state directory holding the last day of each phone's in-service time as the daemon keeps it (availability.json):
 * every hour in service but for `out` minutes blamed on a layer that changes with the phone and the hour.
 */
export function stateWithHistory(dir: string, phones: ReadonlyArray<{ udid: string; port?: string }>, now = Date.now()): string {
  mkdirSync(dir, { recursive: true });
  const layers = ['port', 'phone', 'adb', 'cloud', 'hub', 'readiness'] as const;
  const start = Math.floor(now / HOUR_MS) * HOUR_MS - 23 * HOUR_MS;
  const stored: StoredPhone[] = phones.map((p, n) => {
    const tally = new Tally();
    for (let h = 0; h < 24; h++) {
      const at = start + h * HOUR_MS;
      const out = (n * 7 + h * 13) % 5 === 0 ? 10 + ((n + h) % 4) * 12 : 0;
      tally.add('in_service', at, Math.min(now, at + (60 - out) * 60_000));
      if (out) tally.add(`in_transition:${layers[(n + h) % layers.length]}`, at + (60 - out) * 60_000, Math.min(now, at + HOUR_MS));
    }
    return { udid: p.udid, serial: p.udid, ...(p.port && { port: p.port }), state: 'in_service', creditedAt: now, tally };
  });
  writeFileSync(join(dir, AVAILABILITY_FILE), clockText({ phones: stored, ports: [], hubs: [], host: new Tally(), savedAt: now }));
  return dir;
}

/** The daemon's status address once it listens ("127.0.0.1:PORT"). */
export async function statusOf(agent: AgentProcess): Promise<string> {
  return String((await agent.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)', 60_000)).listen);
}
