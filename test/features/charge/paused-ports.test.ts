import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pausedPortsFile } from '../../../src/features/charge/paused-ports.js';
import { captureLogger } from '../../log/capture.js';
import { chargeBed } from './charge-bed.js';

const fileIn = () => join(mkdtempSync(join(tmpdir(), 'da-charge-')), 'state', 'charge-paused-ports.json');

describe('pausedPortsFile', () => {
  it('keeps the ports held off across runs, and starts empty without a file', () => {
    const file = fileIn();
    const { logger } = captureLogger();
    expect(pausedPortsFile(file, logger).load()).toBeUndefined();
    pausedPortsFile(file, logger).save([{ hub: '1-1.4', port: 3, udid: 'U1', way: 'uhubctl' }]);
    expect(pausedPortsFile(file, logger).load()).toEqual([{ hub: '1-1.4', port: 3, udid: 'U1', way: 'uhubctl' }]);
  });

  it('says once that a file it cannot read is not its own, and starts without it', () => {
    const file = fileIn();
    const { logger, lines } = captureLogger();
    pausedPortsFile(file, logger).save([{ hub: '1', port: 1, udid: 'U', way: 'uhubctl' }]);
    writeFileSync(file, '{"ports": [');
    expect(pausedPortsFile(file, logger).load()).toBeUndefined();
    expect(lines().filter((l) => /is not one the agent wrote/.test(String(l.msg)))).toHaveLength(1);
  });
});

describe('charge control across a crash', () => {
  it('switches on at start the ports an earlier run left off, and keeps those it holds off itself', async () => {
    const file = fileIn();
    const { logger } = captureLogger();
    pausedPortsFile(file, logger).save([{ hub: '1-1.4', port: 3, udid: 'U1', way: 'uhubctl' }]);
    const { control, switched, answered } = chargeBed(
      { DEVICE_AGENT_CHARGE_WAYS: 'U2=uhubctl' },
      { U2: { hub: '2-1', port: 1 } },
      { kept: pausedPortsFile(file, logger) },
    );
    control.start();
    await control.settled();
    expect(switched).toEqual(['uhubctl 1-1.4:3 on']);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ ports: [] });

    // A pause of its own is kept while it lasts: a crash now would leave 2-1:1 to the next start.
    answered('S2', 'U2', 90);
    control.devicesChanged();
    await control.settled();
    expect(switched).toEqual(['uhubctl 1-1.4:3 on', 'uhubctl 2-1:1 off']);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ ports: [{ hub: '2-1', port: 1, udid: 'U2', way: 'uhubctl' }] });
    await control.stop();
    expect(switched).toEqual(['uhubctl 1-1.4:3 on', 'uhubctl 2-1:1 off', 'uhubctl 2-1:1 on']);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ ports: [] });
  });
});
