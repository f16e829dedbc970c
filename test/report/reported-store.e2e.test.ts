import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ReportedStore } from '../../src/report/reported-store.js';
import { storedDevice } from '../../src/report/stored-device.js';
import type { DeviceInfo } from '../../src/cloud/types.js';
import type { Logger } from '../../src/log/logger.js';
import { silentLogger } from '../../src/log/logger.js';
import { androidPhone } from '../support/devices.js';

const info = (udid: string, battery = '50'): DeviceInfo => androidPhone(udid, { battery: { percentage: battery } });

function recorder() {
  const lines: string[] = [];
  const logger = {
    ...silentLogger(),
    warn: (_o: unknown, m?: string) => void lines.push(String(m)),
    info: (_o: unknown, m?: string) => void lines.push(`info: ${String(m)}`),
  };
  return { logger: logger as unknown as Logger, lines };
}

const dir = () => mkdtempSync(join(tmpdir(), 'da-store-'));
const mounts: string[] = [];
afterAll(() => {
  for (const m of mounts) execFileSync('umount', ['-l', m]);
});

describe('ReportedStore', () => {
  it('keeps the delivered set across a restart, and writes only when the set of devices changes', () => {
    const file = join(dir(), 'state', 'reported-devices.json');
    const a = new ReportedStore(file, silentLogger());
    expect(a.load()).toBeUndefined();
    a.save([info('A'), info('B')]);
    const written = readFileSync(file, 'utf8');
    a.save([info('B', '49'), info('A', '48')]);
    expect(readFileSync(file, 'utf8')).toBe(written);
    expect(new ReportedStore(file, silentLogger()).load()?.map((d) => d.udid)).toEqual(['A', 'B']);
    a.save([info('A')]);
    expect(new ReportedStore(file, silentLogger()).load()?.map((d) => d.udid)).toEqual(['A']);
  });

  it('starts clean, with one warning, from a file that is not its JSON; a half-written temporary file is ignored', () => {
    const d = dir();
    const file = join(d, 'reported-devices.json');
    for (const garbage of ['{"devices":[{"udid":"A","state":"dev', '<html>', '{"devices":"x"}', '']) {
      writeFileSync(file, garbage);
      const { logger, lines } = recorder();
      const store = new ReportedStore(file, logger);
      expect(store.load()).toBeUndefined();
      expect(lines).toEqual([expect.stringMatching(/reported-devices\.json is not one the agent wrote; .*replaced at the next save/)]);
    }
    // A crash between writing the temporary file and the rename leaves the previous set.
    new ReportedStore(file, silentLogger()).save([info('KEPT')]);
    writeFileSync(`${file}.tmp`, '{"devices":[{"ud');
    expect(new ReportedStore(file, silentLogger()).load()?.map((x) => x.udid)).toEqual(['KEPT']);
  });

  it('a full disk or a state directory turned read-only: one warning per problem, reports go on, and a line when it works again', () => {
    const mount = dir();
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', mount]);
    mounts.push(mount);
    const file = join(mount, 'reported-devices.json');
    const { logger, lines } = recorder();
    const store = new ReportedStore(file, logger);
    store.save([info('A')]);
    expect(lines).toEqual([]);
    // Full: a set larger than the file system.
    const many = Array.from({ length: 400 }, (_, i) => info(`DEVICE${i}`));
    store.save(many);
    store.save([...many, info('X')]);
    // The directory's trouble as the one warning (issue 42), what this file's loss costs at info; each once.
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^the state directory .*: the file system is full \(ENOSPC\)\. The agent goes on reporting.*free space on its file system/);
    expect(lines[1]).toMatch(/^info: cannot keep the reported device set.*ENOSPC.*free space, or make the state directory writable/);
    expect(new ReportedStore(file, silentLogger()).load()?.map((x) => x.udid)).toEqual(['A']);
    // Read-only.
    execFileSync('mount', ['-o', 'remount,ro', mount]);
    store.save([info('B')]);
    store.save([info('C')]);
    expect(lines).toHaveLength(4);
    expect(lines[2]).toMatch(/^the state directory .*: the file system is read-only \(EROFS\)\..*remount it read-write/);
    expect(lines[3]).toMatch(/^info: .*EROFS/);
    execFileSync('mount', ['-o', 'remount,rw', mount]);
    store.save([info('D')]);
    expect(lines[4]).toMatch(/^info: the state directory keeps the reported device set again/);
    expect(new ReportedStore(file, silentLogger()).load()?.map((x) => x.udid)).toEqual(['D']);
  });

  it('creates the state directory when it is missing', () => {
    const d = join(dir(), 'a', 'b');
    mkdirSync(join(d, '..'), { recursive: true });
    new ReportedStore(join(d, 'reported-devices.json'), silentLogger()).save([info('A')]);
    expect(JSON.parse(readFileSync(join(d, 'reported-devices.json'), 'utf8')).devices).toHaveLength(1);
  });

  it("keeps a device's identity, all a restart reads back, and none of its inventory", () => {
    const file = join(dir(), 'reported-devices.json');
    const phone: DeviceInfo = { ...info('A', '80'), modelName: 'Pixel 8', message: 'charging' };
    new ReportedStore(file, silentLogger()).save([phone]);
    const [kept] = (JSON.parse(readFileSync(file, 'utf8')) as { devices: Array<Record<string, unknown>> }).devices;
    expect(kept).toMatchObject({ udid: 'A', modelName: 'Pixel 8', status: 'AVAILABLE' });
    expect(kept).not.toHaveProperty('battery');
    expect(kept).not.toHaveProperty('message');
    expect(new ReportedStore(file, silentLogger()).load()).toEqual([storedDevice(phone)]);
  });
});
