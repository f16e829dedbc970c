import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MachineCollector } from '../../src/machine/collector.js';

const fixtures = new URL('fixtures/', import.meta.url);
/** A /proc with the recorded files, their source line left out. */
function proc(files: Record<string, string>): string {
  const dir = mkdtempSync(join(os.tmpdir(), 'da-proc-'));
  mkdirSync(join(dir, 'net'));
  for (const [name, fixture] of Object.entries(files)) {
    const text = readFileSync(new URL(fixture, fixtures), 'utf8').replace(/^#.*\n/, '');
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('MachineCollector', () => {
  it('freemem is MemAvailable and totalmem MemTotal, from /proc/meminfo', async () => {
    const dir = proc({ meminfo: 'proc-meminfo-host.txt', 'net/route': 'proc-net-route-container.txt' });
    const m = await new MachineCollector({ version: '1', buildNumber: 'b', procDir: dir }).collect();
    expect(m.totalmem).toBe(24683656 * 1024);
    const available = Number(/MemAvailable:\s+(\d+)/.exec(readFileSync(join(dir, 'meminfo'), 'utf8'))![1]) * 1024;
    expect(m.freemem).toBe(available);
    expect(m).toMatchObject({ hostname: os.hostname(), arch: os.arch(), platform: os.platform(), version: '1', buildNumber: 'b' });
    expect(Number.isInteger(m.uptime)).toBe(true);
  });

  it('without /proc, the os module gives the memory figures and the report still goes out', async () => {
    const m = await new MachineCollector({ version: '1', buildNumber: 'b', procDir: '/nonexistent' }).collect();
    expect(m.totalmem).toBe(os.totalmem());
    expect(m.freemem).toBeGreaterThan(0);
    expect(m.network.address).toBeTruthy();
  });
});
