// The doctor's lines of the iPhone developer services, on a daemon that
// answers or not and tools of a version that does or does not support iOS 17.
import { describe, expect, it } from 'vitest';
import { IosDeveloper } from '../../../src/features/ios-developer/developer.js';
import { iosDeveloperItems } from '../../../src/features/ios-developer/doctor.js';
import type { HttpAnswer } from '../../../src/features/ios-developer/watch.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { silentLogger } from '../../../src/log/logger.js';
import { systemClock } from '../../../src/util/clock.js';
import { featureContext } from '../../support/feature-bed.js';

function part(answer: HttpAnswer, goIosVersion: string | undefined) {
  const ctx = featureContext({
    set: { 'iosDeveloper.tunnelDaemons': ['go-ios=http://127.0.0.1:60105'], 'iosDeveloper.pollSeconds': 60 },
    registry: new DeviceRegistry(),
    logger: silentLogger(),
    clock: systemClock,
  });
  return new IosDeveloper(ctx, {
    fetch: async () => answer,
    run: async (command) => (command === 'ios' && goIosVersion ? { stdout: `{"version":"${goIosVersion}"}\n` } : { missing: true }),
  });
}

describe("the iPhone developer services' doctor lines", () => {
  it('a daemon that answers and a tool that supports iOS 17: two ok lines', async () => {
    const items = await iosDeveloperItems(part({ status: 200, body: '[]\n' }, '1.3.2'));
    expect(items).toEqual([
      { id: 'ios.tunnels', status: 'ok', finding: "go-ios's tunnel agent at http://127.0.0.1:60105 answers: 0 tunnel(s) listed" },
      { id: 'ios.tools', status: 'ok', finding: 'iOS tools: go-ios 1.3.2, pymobiledevice3 not found: iOS 17 and later supported' },
    ]);
  });

  it('no daemon and no tool at all (a host without iPhones from iOS 17): one line, no warning', async () => {
    const items = await iosDeveloperItems(part({ error: 'connection refused' }, undefined));
    expect(items).toEqual([
      { id: 'ios.tools', status: 'ok', finding: expect.stringContaining('no iOS 17 tunnel daemon answers and no iOS tool (go-ios, pymobiledevice3) is found') },
    ]);
  });

  it('no daemon answers, and the tools are too old: two warnings, each with what to do', async () => {
    const items = await iosDeveloperItems(part({ error: 'connection refused' }, '1.0.100'));
    expect(items.map((i) => [i.id, i.status])).toEqual([
      ['ios.tunnels', 'warn'],
      ['ios.tools', 'warn'],
    ]);
    expect(items[0]!.advice).toContain('`ios tunnel start`');
    expect(items[1]!.finding).toContain('none supports iOS 17 and later');
    expect(items[1]!.advice).toMatch(/^install go-ios 1\.0\.122 or later/);
  });
});
