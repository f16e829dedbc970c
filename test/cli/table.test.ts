import { describe, expect, it } from 'vitest';
import { formatTable as format, MAX_CELL_CHARS } from '../../src/cli/table.js';
import { ansiPaint, type Paint } from '../../src/util/paint.js';
import type { DeviceRow } from '../../src/status/device-rows.js';
import { columnsOf } from '../../src/devices/feature.js';
import type { FeatureColumn } from '../../src/devices/feature-view.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { rowFeatures } from '../status/row-features.js';

/** The table as `list` prints it: the registered features' columns (wear's, charge control's, cell columns such as readiness's, then health's). */
function formatTable(rows: readonly DeviceRow[], paint?: Paint, cellColumns: readonly FeatureColumn[] = []): string {
  const [samsung, wear, charge, health] = rowFeatures(new DeviceRegistry());
  return format(rows, paint, columnsOf([samsung!, wear!, charge!, { name: 'cells', columns: () => cellColumns }, health!]));
}

const row = (over: Partial<DeviceRow>): DeviceRow => ({
  udid: 'R58M12AB',
  serial: 'R58M12AB',
  state: 'device',
  status: 'AVAILABLE',
  platform: 'Android',
  model: 'SM-G991B',
  version: '14',
  batteryPercent: 81,
  batteryCelsius: 31,
  charging: true,
  storageFreeBytes: 12.34 * 1024 ** 3,
  usb: '1-1.4.2',
  up: true,
  problems: [],
  ...over,
});

describe('formatTable', () => {
  it('pads columns to their widest cell, and shows the udid where it is the serial: a blank would read as unknown (issue 61)', () => {
    const text = formatTable([
      row({}),
      row({ serial: 'ZY22', udid: 'ZY22', model: 'moto g power (2022)', batteryPercent: 9, charging: false, problems: ['battery_low'] }),
    ]);
    expect(text).toBe(
      [
        'SERIAL    UDID      STATE   MODEL                OS          BATTERY  TEMP  CHARGING  FREE      USB      PROBLEMS',
        'R58M12AB  R58M12AB  device  SM-G991B             Android 14  81%      31°C  yes       12.3 GiB  1-1.4.2',
        'ZY22      ZY22      device  moto g power (2022)  Android 14  9%       31°C  no        12.3 GiB  1-1.4.2  battery_low',
        '',
      ].join('\n'),
    );
  });

  it('shows the udid of a TCP device, "tcp" as its port, and why a device is not up', () => {
    const text = formatTable([
      row({ serial: '10.0.0.7:5555', udid: 'R3CN90', usb: undefined }),
      row({
        serial: 'LOCKED',
        udid: 'LOCKED',
        state: 'unauthorized',
        up: false,
        model: undefined,
        version: undefined,
        batteryPercent: undefined,
        batteryCelsius: undefined,
        charging: undefined,
        storageFreeBytes: undefined,
        usb: '2-1',
      }),
      row({ serial: 'W1', udid: 'W1', up: false, problems: ['shell_unresponsive'] }),
      row({ serial: 'N1', udid: 'N1', up: false }),
    ]);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^SERIAL\s+UDID\s+STATE/);
    expect(lines[1]).toMatch(/^10\.0\.0\.7:5555\s+R3CN90\s+device .* tcp$/);
    expect(lines[2]).toMatch(/^LOCKED\s+LOCKED\s+unauthorized\s+2-1\s+unauthorized$/);
    expect(lines[3]).toMatch(/shell_unresponsive$/);
    expect(lines[4]).toMatch(/no_inventory$/);
  });

  it('paints only with a paint, and pads by the text, not the escape codes', () => {
    const plain = formatTable([row({ problems: ['battery_hot'] })]);
    const painted = formatTable([row({ problems: ['battery_hot'] })], ansiPaint);
    expect(plain).not.toContain('\u001b[');
    expect(painted).toContain('\u001b[32mdevice\u001b[39m');
    expect(painted).toContain('\u001b[31mbattery_hot\u001b[39m');
    expect(painted.replace(/\u001b\[\d+m/g, '')).toBe(plain);
  });

  it('says so when there is no device', () => {
    expect(formatTable([])).toBe('no devices\n');
  });

  it('shows a control character a device put in its model or serial as U+FFFD, never as a terminal command', () => {
    const text = formatTable([row({ serial: 'EVIL\u001b]0;owned\u0007', udid: 'EVIL', model: 'Pix\u001b[2J\u009bel\r' })]);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(text).toContain('Pix\ufffd[2J\ufffdel\ufffd');
  });

  it('keeps one row per device when a phone names itself with a newline, and shows bidi overrides as U+FFFD', () => {
    // A device name is settable by any shell user of the phone (settings put global device_name).
    const forged = 'Pixel\nFAKE01    device  SM-G991B';
    const text = formatTable([row({ model: forged }), row({ serial: 'B', udid: 'B', model: 'abc\u202Efdp.exe\u2066\u200B\tx' })]);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain('Pixel\ufffdFAKE01');
    expect(text).not.toMatch(/[\t\p{Cf}]/u);
    expect(lines[2]).toContain('abc\ufffdfdp.exe\ufffd\ufffd\ufffdx');
  });

  it('clips a long cell to its width, whatever a phone calls itself (issue 35)', () => {
    const text = formatTable([row({ model: 'M'.repeat(10_000) }), row({ serial: 'B', udid: 'B', model: 'Pixel 7' })]);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`${'M'.repeat(MAX_CELL_CHARS - 1)}…`);
    expect(lines[1]).not.toContain('M'.repeat(MAX_CELL_CHARS));
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(400);
  });
});

describe('formatTable: battery health (issue 61: plain columns, not one mixed cell)', () => {
  it("the phone's word for its battery, its capacity and its cycles, each a column of its own left out where no phone has it; no charger voltage nor time held full", () => {
    const text = formatTable([
      row({}),
      row({
        serial: 'S25',
        udid: 'S25',
        batteryPercent: 100,
        batteryHealth: 'GOOD',
        batteryHealthPercent: 86,
        batteryCycles: 619,
        batteryFullSeconds: 26 * 3600,
        problems: ['battery_held_full'],
      }),
      row({
        serial: 'X1',
        udid: 'X1',
        batteryHealth: 'OVERHEAT',
        chargerMillivolts: 11000,
        batteryFullSeconds: 0,
        problems: ['battery_unhealthy', 'charging_voltage_high'],
      }),
      row({ serial: 'Y1', udid: 'Y1', batteryFullSeconds: 90 }),
    ]);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^SERIAL\s+UDID\s+STATE\s+MODEL\s+OS\s+BATTERY\s+TEMP\s+CHARGING\s+HEALTH\s+CAPACITY\s+CYCLES\s+FREE\s+USB\s+PROBLEMS$/);
    expect(lines[1]).toMatch(/ yes {3,}12\.3 GiB/);
    expect(lines[2]).toMatch(/ yes\s+good\s+86%\s+619\s+12\.3 GiB .* battery_held_full$/);
    expect(lines[3]).toMatch(/ yes\s+overheat\s+12\.3 GiB .* battery_unhealthy,charging_voltage_high$/);
    expect(text).not.toMatch(/11\.0 V|full 26 h|full 90 s/);
    expect(formatTable([row({ batteryFullSeconds: 0, chargerMillivolts: 5000 })]).split('\n')[0]).not.toMatch(/HEALTH|CAPACITY|CYCLES/);
    expect(formatTable([row({ batteryHealth: 'UNKNOWN' })]).split('\n')[0]).not.toContain('HEALTH');
    expect(formatTable([row({ batteryHealth: 'OVER_VOLTAGE' })])).toContain(' over voltage ');
  });

  it("paints the figure of a battery problem: health for an unhealthy one, capacity and cycles by wear's findings (now: bad, forecast: a warning)", () => {
    // A worn battery is wear's finding (its capacity and cycles are wear's columns), painted by when it needs action.
    const findings = [
      { reason: 'battery_cycles', days: 0 },
      { reason: 'battery_capacity', days: 12 },
    ];
    const worn = formatTable(
      [row({ batteryCycles: 900, batteryHealthPercent: 71, batteryHealth: 'GOOD', wear: { findings, daysLeft: 0, reason: 'battery_cycles' } })],
      ansiPaint,
    );
    expect(worn).toContain('\u001b[31m900\u001b[39m');
    expect(worn).toContain('\u001b[33m71%\u001b[39m');
    expect(worn).toContain('\u001b[31mbattery_cycles now\u001b[39m');
    expect(worn).not.toContain('\u001b[33mgood');
    expect(formatTable([row({ batteryHealth: 'DEAD', problems: ['battery_unhealthy'] })], ansiPaint)).toContain('\u001b[33mdead\u001b[39m');
    expect(formatTable([row({ batteryCycles: 12, problems: ['storage_full'] })], ansiPaint)).toMatch(/ 12 /);
  });
});

describe('formatTable: one USB column (issue 61)', () => {
  it("the hub port the settings map, in the USB cell where the port path does not already say it; 'tcp' for a network phone", () => {
    const lines = formatTable([
      row({ hub: '1-1.4', hubPort: 2 }),
      row({ serial: 'M1', udid: 'M1', usb: '1-1.3', hub: '1-1.4', hubPort: 2 }),
      row({ serial: '10.0.0.7:5555', udid: 'N1', usb: undefined, hub: '2-1', hubPort: 4 }),
      row({ serial: 'B1', udid: 'B1', usb: undefined }),
    ]).split('\n');
    expect(lines[0]).toMatch(/\sFREE\s+USB\s+PROBLEMS$/);
    expect(lines[0]).not.toMatch(/HUB:PORT|USB PORT/);
    expect(lines[1]).toMatch(/ 1-1\.4\.2$/);
    expect(lines[2]).toMatch(/ 1-1\.3, hub 1-1\.4:2$/);
    expect(lines[3]).toMatch(/ tcp, hub 2-1:4$/);
    expect(lines[4]).toMatch(/ GiB$/);
  });

  it("the hub's name the lab gave it last in the cell (hubNames)", () => {
    const lines = formatTable([
      row({ hubName: 'rack B, shelf 2' }),
      row({ serial: '10.0.0.7:5555', udid: 'N1', usb: undefined, hub: '2-1', hubPort: 4, hubName: 'bench' }),
    ]).split('\n');
    expect(lines[1]).toMatch(/ 1-1\.4\.2, rack B, shelf 2$/);
    expect(lines[2]).toMatch(/ tcp, hub 2-1:4, bench$/);
  });

  it("a feature's port cell (the USB layer's: the port and what the kernel said of it) stands inside the USB column, with the mapped hub", () => {
    const columns = [{ key: 'usbPort', title: 'USB PORT', inside: 'USB' }];
    const lines = formatTable(
      [
        row({ hub: '1-1.4', hubPort: 2, features: { usbPort: '1-1.4.2 14 enum failures/2d (port)' } }),
        row({ serial: '10.0.0.7:5555', udid: 'N1', usb: undefined, hub: '2-1', hubPort: 4, features: { usbPort: '1-1.3 ok' } }),
        row({ serial: 'B1', udid: 'B1' }),
      ],
      undefined,
      columns,
    ).split('\n');
    expect(lines[0]).toMatch(/\sUSB\s+PROBLEMS$/);
    expect(lines[1]).toMatch(/ 1-1\.4\.2 14 enum failures\/2d \(port\)$/);
    expect(lines[2]).toMatch(/ {2}tcp, 1-1\.3 ok, hub 2-1:4$/);
    expect(lines[3]).toMatch(/ 1-1\.4\.2$/);
  });
});

describe('formatTable: charge control', () => {
  it('a CHARGE column with the way, or until when a pause runs; left out where no phone has a way', () => {
    expect(formatTable([row({})])).not.toContain('CHARGE');
    const text = formatTable([
      row({ chargeWay: 'uhubctl' }),
      row({ serial: 'P1', udid: 'P1', chargeWay: 'uhubctl', chargePausedUntil: Date.UTC(2026, 10, 23, 17, 40, 5) }),
      row({ serial: 'N1', udid: 'N1' }),
    ]);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/ CHARGE /);
    expect(lines[1]).toMatch(/ uhubctl( |$)/);
    expect(lines[2]).toMatch(/ paused to 17:40:05Z( |$)/);
  });

  it('the samsung way with where it stands: samsung:on, samsung:not-taken', () => {
    const lines = formatTable([
      row({ chargeWay: 'samsung', chargeState: 'on' }),
      row({ serial: 'P1', udid: 'P1', chargeWay: 'samsung', chargeState: 'not-taken' }),
    ]).split('\n');
    expect(lines[1]).toMatch(/ samsung:on( |$)/);
    expect(lines[2]).toMatch(/ samsung:not-taken( |$)/);
  });

  it("shows the features' columns before PROBLEMS, '-' for a device a feature says nothing of, and leaves out a column no device fills", () => {
    const columns = [
      { key: 'readiness', title: 'READY' },
      { key: 'usbPort', title: 'USB PORT' },
      { key: 'other', title: 'OTHER' },
    ];
    // (A cell column of its own here; the USB layer's own stands inside USB, above.)
    const text = formatTable(
      [
        row({ features: { readiness: 'not ready: stayAwake', usbPort: '1-1.4.2 14 enum failures/2d (port)' } }),
        row({ serial: 'ZY22', udid: 'ZY22', usb: undefined, features: { readiness: 'ready' } }),
      ],
      undefined,
      columns,
    );
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/\sUSB\s+READY\s+USB PORT\s+PROBLEMS$/);
    expect(lines[1]).toMatch(/\s1-1\.4\.2\s+not ready: stayAwake\s+1-1\.4\.2 14 enum failures\/2d \(port\)$/);
    expect(lines[2]).toMatch(/\sready\s+-$/);
    expect(text).not.toContain('OTHER');
    // Without feature cells the table is as before.
    expect(formatTable([row({})], undefined, columns).split('\n')[0]).toMatch(/\sUSB\s+PROBLEMS$/);
  });
});
