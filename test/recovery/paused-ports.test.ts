import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { loadSettings } from '../../src/config/load.js';
import { BookingGate } from '../../src/recovery/booking-gate.js';
import { ChargeControl } from '../../src/recovery/charge.js';
import { PausedPortsFile } from '../../src/recovery/paused-ports.js';
import { AgentStats } from '../../src/status/stats.js';
import { VirtualTime } from '../../src/util/clock.js';
import { captureLogger } from '../log/capture.js';

const fileIn = () => join(mkdtempSync(join(tmpdir(), 'da-charge-')), 'state', 'charge-paused-ports.json');

describe('PausedPortsFile', () => {
  it('keeps the ports held off across runs, and starts empty without a file', () => {
    const file = fileIn();
    const { logger } = captureLogger();
    expect(new PausedPortsFile(file, logger).load()).toEqual([]);
    new PausedPortsFile(file, logger).save([{ hub: '1-1.4', port: 3, udid: 'U1', way: 'uhubctl' }]);
    expect(new PausedPortsFile(file, logger).load()).toEqual([{ hub: '1-1.4', port: 3, udid: 'U1', way: 'uhubctl' }]);
  });

  it('says once that a file it cannot read is not its own, and starts without it', () => {
    const file = fileIn();
    const { logger, lines } = captureLogger();
    new PausedPortsFile(file, logger).save([{ hub: '1', port: 1, udid: 'U', way: 'uhubctl' }]);
    writeFileSync(file, '{"ports": [');
    expect(new PausedPortsFile(file, logger).load()).toEqual([]);
    expect(lines().filter((l) => /is not the JSON the agent writes/.test(String(l.msg)))).toHaveLength(1);
  });
});

describe('charge control across a crash', () => {
  it('switches on at start the ports an earlier run left off, and keeps those it holds off itself', async () => {
    const file = fileIn();
    const { logger } = captureLogger();
    new PausedPortsFile(file, logger).save([{ hub: '1-1.4', port: 3, udid: 'U1', way: 'uhubctl' }]);
    const time = new VirtualTime();
    const clock = time.clock({ seed: 1 });
    const switched: string[] = [];
    const registry = new DeviceRegistry();
    const control = new ChargeControl({
      registry,
      settings: loadSettings({ env: { DEVICE_AGENT_CHARGE_WAYS: 'U2=uhubctl' } }),
      hubPorts: new Map([['U2', { hub: '2-1', port: 1 }]]),
      ports: {
        uhubctl: {
          switch: (hub, port, power) => {
            switched.push(`${hub}:${port} ${power}`);
            return Promise.resolve('');
          },
        },
      },
      gate: new BookingGate({ cacheMs: 10_000, maxRequestsPerMinute: 4 }, clock),
      booking: { ask: () => Promise.resolve({ booked: false }) },
      stats: new AgentStats(),
      logger,
      clock,
      kept: new PausedPortsFile(file, logger),
    });
    control.start();
    await control.settled();
    expect(switched).toEqual(['1-1.4:3 on']);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ ports: [] });

    // A pause of its own is kept while it lasts: a crash now would leave 2-1:1 to the next start.
    registry.sync('android', new Map([['S2', 'device']]));
    registry.answered(
      'android/S2',
      {
        udid: 'U2',
        serialNumber: 'S2',
        state: 'device',
        status: 'AVAILABLE',
        platformName: 'Android',
        isAndroid: true,
        isIos: false,
        battery: { percentage: '90' },
      },
      clock.wall(),
      0,
    );
    control.devicesChanged();
    await control.settled();
    expect(switched).toEqual(['1-1.4:3 on', '2-1:1 off']);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ ports: [{ hub: '2-1', port: 1, udid: 'U2', way: 'uhubctl' }] });
    await control.stop();
    expect(switched).toEqual(['1-1.4:3 on', '2-1:1 off', '2-1:1 on']);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ ports: [] });
  });
});
