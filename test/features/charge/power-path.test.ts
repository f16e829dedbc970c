import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHARGE_POWER_CHECKS } from '../../../src/features/charge/charge.js';
import { PowerPaths, uncutPortsFile } from '../../../src/features/charge/power-paths.js';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { captureLogger } from '../../log/capture.js';
import { chargeBed } from './charge-bed.js';

// Charge control checking the power path (issue 43) on virtual time: the
// hub tools of the bed switch nothing, so a phone that answers "on power"
// with its port off is on a hub port that does not cut power. Its lines,
// its note, its series, and the mark kept across a restart.

const ENV = { DEVICE_AGENT_CHARGE_WAYS: 'U1=uhubctl', DEVICE_AGENT_CHARGE_MAX_PAUSE_SECONDS: '60' };
const PORTS = { U1: { hub: '1-1', port: 2 } };
const onPower: Partial<DeviceInfo> = { batteryDetail: { externalPower: true } };
const offPower: Partial<DeviceInfo> = { batteryDetail: { externalPower: false } };
const stateFile = () => join(mkdtempSync(join(tmpdir(), 'da-power-')), 'state', 'charge-uncut-ports.json');
const warnings = (lines: () => Array<Record<string, unknown>>) => lines().filter((l) => l.level === 'warn');

describe('charge control: a hub port that does not cut power', () => {
  it('is named once (port, hub, what was seen, what to do), the pause ends, the phone says why, it is counted, and the port is not switched again, across a restart too', async () => {
    const file = stateFile();
    const { logger, lines } = captureLogger();
    const powerPaths = new PowerPaths(uncutPortsFile(file, logger));
    const { control, feature, switched, answered, time, registry, stats } = chargeBed(ENV, PORTS, { logger, powerPaths });
    answered('S1', 'U1', 95, undefined, onPower);
    control.start();
    await control.settled();
    expect(switched).toEqual(['uhubctl 1-1:2 off']);

    // Still on power with the port "off": once after 8 s is not enough, twice by 20 s is.
    for (const ms of [8_000, 6_000, 8_000]) {
      time.advance(ms);
      answered('S1', 'U1', 95, undefined, onPower);
      control.devicesChanged();
      await control.settled();
    }
    expect(switched).toEqual(['uhubctl 1-1:2 off', 'uhubctl 1-1:2 on']);
    const said = warnings(lines);
    expect(said).toHaveLength(1);
    expect(String(said[0]!.msg)).toMatch(
      /^hub 1-1 port 2 does not cut power: U1 stayed on power \(3 readings on power over 22 s with the port switched off\); charge control no longer switches this port\. To pause this phone's charge, put it on a hub with real per-port power switching \(https:\/\/github\.com\/mvp\/uhubctl#compatible-usb-hubs\)$/,
    );
    expect(said[0]).toMatchObject({ hub: '1-1', port: 2, udid: 'U1' });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ ports: [{ hub: '1-1', port: 2, udid: 'U1' }] });

    const record = registry.find('android', 'S1')!;
    expect(feature.notes!(record, [record])).toEqual([
      expect.stringMatching(
        /^hub 1-1 port 2 does not cut power when switched off \(3 readings on power over 22 s with the port switched off, .*Z\): charge control no longer pauses this phone there/,
      ),
    ]);
    const series = feature.metrics!();
    expect(series.find((m) => m.name === 'device_agent_charge_ports_without_power_cut')?.samples).toEqual([{ value: 1 }]);
    expect(stats.counter(CHARGE_POWER_CHECKS).get('not_cut')).toBe(1);

    // Full and on power for minutes more: no pause, no line.
    for (let i = 0; i < 10; i++) {
      time.advance(20_000);
      answered('S1', 'U1', 100, undefined, onPower);
      control.devicesChanged();
      await control.settled();
    }
    expect(switched).toEqual(['uhubctl 1-1:2 off', 'uhubctl 1-1:2 on']);
    expect(warnings(lines)).toHaveLength(1);
    await control.stop();

    // The next run reads the mark from the state directory.
    const next = chargeBed(ENV, PORTS, { logger, powerPaths: new PowerPaths(uncutPortsFile(file, logger)) });
    next.answered('S1', 'U1', 95, undefined, onPower);
    next.control.start();
    next.time.advance(10_000);
    await next.control.settled();
    expect(next.switched).toEqual([]);
    await next.control.stop();
  });

  it('a reading the battery service gave before the off switch does not count, even from an inventory that ended after it', async () => {
    const { logger } = captureLogger();
    const powerPaths = new PowerPaths();
    const { control, switched, answered, time, clock } = chargeBed(ENV, PORTS, { logger, powerPaths });
    answered('S1', 'U1', 95, undefined, onPower);
    control.start();
    await control.settled();
    expect(switched).toEqual(['uhubctl 1-1:2 off']);
    // Slow inventories that read the battery a moment before the switch, and ended after it.
    const before = clock.wall() - 1_000;
    for (let i = 0; i < 4; i++) {
      time.advance(10_000);
      answered('S1', 'U1', 95, undefined, { batteryDetail: { externalPower: true, observedAtMs: before } });
      control.devicesChanged();
      await control.settled();
    }
    expect(powerPaths.uncutAt('1-1', 2)).toBeUndefined();
    expect(switched).toEqual(['uhubctl 1-1:2 off']);
    await control.stop();
  });

  it('a port that cuts power is not named, and a phone not on power again by the end of the wait after its pause is said once', async () => {
    const { logger, lines } = captureLogger();
    const powerPaths = new PowerPaths();
    const { control, switched, answered, time, stats } = chargeBed(ENV, PORTS, { logger, powerPaths });
    answered('S1', 'U1', 95, undefined, onPower);
    control.start();
    await control.settled();
    // Off power with the port off (a phone on Wi-Fi adb, charged from the port).
    for (let i = 0; i < 6; i++) {
      time.advance(10_000);
      answered('S1', 'U1', 94, undefined, offPower);
      control.devicesChanged();
      await control.settled();
    }
    expect(switched).toEqual(['uhubctl 1-1:2 off', 'uhubctl 1-1:2 on']);
    expect(powerPaths.uncutAt('1-1', 2)).toBeUndefined();
    // The port is on again, yet the phone goes on saying it is off power (and drains below the high mark, so no pause starts).
    for (let i = 0; i < 15; i++) {
      time.advance(10_000);
      answered('S1', 'U1', 70, undefined, offPower);
      control.devicesChanged();
      await control.settled();
    }
    expect(switched).toHaveLength(2);
    const said = warnings(lines);
    expect(said).toHaveLength(1);
    expect(String(said[0]!.msg)).toMatch(
      /^U1 is back on adb after its charge pause but not on power 120 s after hub 1-1 port 2 was switched on again: check the port's power \(uhubctl -l 1-1 -p 2\), the cable and the hub's power supply$/,
    );
    expect([stats.counter(CHARGE_POWER_CHECKS).get('cut'), stats.counter(CHARGE_POWER_CHECKS).get('not_charging_again')]).toEqual([1, 1]);
    await control.stop();
  });
});
