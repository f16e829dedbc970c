import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { incidents } from '../../src/cli/incidents.js';
import { quarantine } from '../../src/cli/quarantine.js';
import type { Setup } from '../../src/cli/setup.js';
import { loadSettings } from '../../src/config/load.js';
import { QUARANTINE, QUARANTINE_REQUESTS_DIR, quarantined } from '../../src/devices/quarantine.js';
import { silentLogger } from '../../src/log/logger.js';
import { STATUS_STATE_FILE } from '../../src/status/endpoint-state.js';
import { processIdentity } from '../../src/util/process-identity.js';
import { lifeBed } from '../features/availability/life.js';
import { captureLogger } from '../log/capture.js';

// `device-agent quarantine` and `incidents` against a daemon's state
// directory, the daemon the report bed's (virtual time), in this process.

type Life = ReturnType<typeof lifeBed>;
const setupOf = (dir: string): Setup => ({
  settings: loadSettings({ env: { DEVICE_AGENT_STATE_DIR: dir } }),
  logger: silentLogger(),
  warnings: [],
  variables: [],
});
const sink = () => {
  let text = '';
  return { stream: { write: (s: string) => ((text += s), true) } as unknown as NodeJS.WritableStream, text: () => text };
};
/** The daemon says it runs (as its status endpoint's state does): this process. */
const running = (dir: string) =>
  writeFileSync(
    join(dir, STATUS_STATE_FILE),
    JSON.stringify({ pid: process.pid, started: processIdentity(process.pid), since: new Date().toISOString(), listen: 'off', listening: false }),
  );

async function quarantineOne(life: Life): Promise<void> {
  await life.boot();
  for (let i = 0; i < 3; i++) {
    life.start('wedge', 'LIFE01');
    await life.bed.advance(90_000, 1_000);
    life.end('LIFE01');
    await life.bed.advance(90_000, 1_000);
  }
  expect(quarantined(life.bed.registry.facet(QUARANTINE).get('LIFE01'))).toBe(true);
}

describe('device-agent quarantine and incidents', () => {
  let life: Life | undefined;
  afterEach(() => life?.cleanup());

  it('list names the phones held, why, since and until when, the evidence; --json the same as data; incidents lists and shows it', async () => {
    life = lifeBed({ phones: 2, seed: 21 });
    await quarantineOne(life);
    const out = sink();
    expect(await quarantine(setupOf(life.stateDir), {}, ['list'], false, out.stream)).toBe(0);
    expect(out.text()).toMatch(
      /^LIFE01: since 2026-01-05T12:\d\d:\d\dZ until 2026-01-05T12:\d\d:\d\dZ, 3 failures in 10 min, blamed on its phone\n {2}\d\d:\d\dZ inventory failed/,
    );
    expect(out.text()).toContain('history: device-agent incidents LIFE01');
    const json = sink();
    expect(await quarantine(setupOf(life.stateDir), {}, ['list'], true, json.stream)).toBe(0);
    expect(JSON.parse(json.text())).toEqual([expect.objectContaining({ udid: 'LIFE01', serial: 'LIFE01', layer: 'phone', reason: '3 failures in 10 min' })]);
    const listed = sink();
    expect(incidents(setupOf(life.stateDir), {}, undefined, false, listed.stream)).toBe(0);
    expect(listed.text()).toMatch(/^2026-01-05T12:\d\d:\d\dZ {2}LIFE01 {2}quarantine {2}quarantined since/);
    const shown = sink();
    expect(incidents(setupOf(life.stateDir), {}, 'LIFE01', false, shown.stream)).toBe(0);
    expect(shown.text()).toMatch(
      /\n {2}2026-01-05T12:\d\d:\d\dZ {2}inventory {2}failure \(inventory, blamed on its phone\): inventory failed: did not answer\n/,
    );
    const none = sink();
    expect(incidents(setupOf(life.stateDir), {}, 'LIFE00', true, none.stream)).toBe(0);
    expect(JSON.parse(none.text())).toEqual([]);
  }, 60_000);

  it('release with the daemon running: the request is taken within a second, and the phone is back with the next report', async () => {
    life = lifeBed({ phones: 2, seed: 22 });
    await quarantineOne(life);
    running(life.stateDir);
    const out = sink();
    const err = sink();
    const asked = quarantine(setupOf(life.stateDir), {}, ['release', 'LIFE01'], false, out.stream, err.stream);
    let done: number | undefined;
    void asked.then((code) => (done = code));
    // The daemon's virtual second, a little real time for the command's polling between.
    while (done === undefined) {
      await life.bed.advance(250, 250);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(done).toBe(0);
    expect(out.text()).toBe("LIFE01: released; back in service with the daemon's next report\n");
    expect(quarantined(life.bed.registry.facet(QUARANTINE).get('LIFE01'))).toBe(false);
    await life.bed.advance(3_000, 500);
    expect(life.bed.cloud.bodies.at(-1)?.body.devices.find((d) => d.udid === 'LIFE01')?.status).toBe('AVAILABLE');
    // A phone not held: one line, exit 1.
    const again = sink();
    expect(await quarantine(setupOf(life.stateDir), {}, ['release', 'LIFE01'], false, sink().stream, again.stream)).toBe(1);
    expect(again.text()).toBe('device-agent: LIFE01 is not quarantined (device-agent quarantine list names those that are)\n');
  }, 60_000);

  it('release with the daemon down: the request waits and is taken when the daemon starts', async () => {
    life = lifeBed({ phones: 2, seed: 23 });
    await quarantineOne(life);
    await life.bed.stopDaemon();
    const out = sink();
    expect(await quarantine(setupOf(life.stateDir), {}, ['release', 'LIFE01'], false, out.stream)).toBe(0);
    expect(out.text()).toMatch(/^LIFE01: release asked; the daemon does not run on .*, and takes it when it starts\n$/);
    expect(readdirSync(join(life.stateDir, QUARANTINE_REQUESTS_DIR))).toHaveLength(1);
    // The next start, on the same state directory: kept quarantined across the restart, then released at its first look.
    const next = lifeBed({ phones: 2, seed: 24, stateDir: life.stateDir });
    try {
      expect(quarantined(next.bed.registry.facet(QUARANTINE).get('LIFE01'))).toBe(true);
      await next.boot();
      expect(quarantined(next.bed.registry.facet(QUARANTINE).get('LIFE01'))).toBe(false);
      expect(readdirSync(join(life.stateDir, QUARANTINE_REQUESTS_DIR))).toEqual([]);
    } finally {
      await next.bed.stopDaemon();
    }
  }, 60_000);

  it("another user's request file (one the directory's mode let in) is refused and removed with one line; the phone stays out", async () => {
    const { logger, lines } = captureLogger('info');
    life = lifeBed({ phones: 2, seed: 25, logger });
    await quarantineOne(life);
    const requests = join(life.stateDir, QUARANTINE_REQUESTS_DIR);
    mkdirSync(requests, { recursive: true });
    const file = join(requests, 'intruder.json');
    writeFileSync(file, JSON.stringify({ release: 'LIFE01', by: 'mallory', at: Date.now() }));
    chownSync(file, 65534, 65534);
    await life.bed.advance(2_000, 500);
    expect(existsSync(file)).toBe(false);
    expect(quarantined(life.bed.registry.facet(QUARANTINE).get('LIFE01'))).toBe(true);
    expect(lines().filter((l) => String(l.msg).includes('was not taken: it belongs to uid 65534'))).toHaveLength(1);
  }, 60_000);

  it("a member of the daemon's group (the package's operators) releases: a file of another user, of the daemon's group, in the group's folder", async () => {
    const { logger, lines } = captureLogger('info');
    life = lifeBed({ phones: 2, seed: 26, logger });
    await quarantineOne(life);
    const requests = join(life.stateDir, QUARANTINE_REQUESTS_DIR);
    // The group's, its files of that group, as the package's tmpfiles.d makes it.
    chmodSync(requests, 0o2770);
    const file = join(requests, 'operator.json');
    writeFileSync(file, JSON.stringify({ release: 'LIFE01', by: 'operator', at: Date.now() }));
    chownSync(file, 65534, process.getgid!());
    await life.bed.advance(2_000, 500);
    expect(existsSync(file)).toBe(false);
    expect(quarantined(life.bed.registry.facet(QUARANTINE).get('LIFE01'))).toBe(false);
    expect(lines().filter((l) => String(l.msg).includes('was not taken'))).toEqual([]);
    // In a folder anyone may write to, the group says nothing of who wrote it: refused.
    await quarantineOne(life);
    chmodSync(requests, 0o2777);
    writeFileSync(file, JSON.stringify({ release: 'LIFE01', by: 'mallory', at: Date.now() }));
    chownSync(file, 65534, process.getgid!());
    await life.bed.advance(2_000, 500);
    expect(quarantined(life.bed.registry.facet(QUARANTINE).get('LIFE01'))).toBe(true);
    expect(lines().filter((l) => String(l.msg).includes('was not taken: it belongs to uid 65534'))).toHaveLength(1);
  }, 60_000);
});
