import { describe, expect, it } from 'vitest';
import { DeviceLines } from '../../src/cli/list.js';
import { formatNotes } from '../../src/cli/table.js';
import { createLogger } from '../../src/log/logger.js';
import { limited } from '../../src/log/limited.js';
import type { DeviceRow } from '../../src/status/device-rows.js';

// Issue 61, 8: `list` printed each problem twice, a log line above the table
// and the PROBLEMS column. A line about one device the table shows is its
// row's now: the word in PROBLEMS or READY, the sentence in a note under
// the table.

function listLogger() {
  const raw: string[] = [];
  const lines = new DeviceLines();
  const logger = createLogger({ level: 'debug', pretty: false, destination: { write: (line: string) => raw.push(line) }, hold: lines.hold });
  return { logger, lines, msgs: () => raw.map((l) => (JSON.parse(l) as { msg: string }).msg) };
}

describe("list's log", () => {
  it('holds a line about one device below an error: gone if the table shows the device, written before it if not; lines about several devices, none, and errors at once', () => {
    const { logger, lines, msgs } = listLogger();
    limited(logger).warn('device-health-problem', { udid: 'X1', problem: 'charging_voltage_high' }, 'device X1: the charger offers 11.0 V');
    logger.warn({ serial: '127.0.0.1:5555', state: 'unauthorized' }, 'network device 127.0.0.1:5555 is unauthorized');
    logger.info({ serial: 'R58M' }, 'device answers its inventory in full again');
    logger.warn({ udid: 'NOPHONE' }, 'a line about a udid no phone has');
    logger.warn({ udid: 'SAME', serials: ['A', 'B'] }, '2 different phones give the udid SAME');
    logger.warn({ serial: 'DUP', devices: 2, usb: '1-1, 1-2' }, '2 devices share the serial DUP');
    logger.warn({ serials: ['C1'] }, '1 device is still connecting or authorizing in adb');
    logger.error({ source: 'android' }, 'no adb server at tcp:127.0.0.1:5037');
    logger.error({ serial: 'R58M' }, 'an error about one device is written');
    logger.warn('a line without fields');
    expect(msgs()).toEqual([
      '2 different phones give the udid SAME',
      '2 devices share the serial DUP',
      '1 device is still connecting or authorizing in adb',
      'no adb server at tcp:127.0.0.1:5037',
      'an error about one device is written',
      'a line without fields',
    ]);
    // The table shows X1 (by udid), the network phone and R58M (by serial): only the line about no shown device is written.
    lines.release(new Set(['X1', 'SERIALX1', '127.0.0.1:5555', 'R58M']));
    expect(msgs().slice(6)).toEqual(['a line about a udid no phone has']);
    lines.release(new Set());
    expect(msgs()).toHaveLength(7);
  });

  it('writes every line it holds when there is no table (a list that ended early)', () => {
    const { logger, lines, msgs } = listLogger();
    logger.warn({ udid: 'X1' }, 'device X1: hot');
    expect(msgs()).toEqual([]);
    lines.release();
    expect(msgs()).toEqual(['device X1: hot']);
  });

  it('writes every line without a hold (the daemon, once, doctor)', () => {
    const raw: string[] = [];
    const logger = createLogger({ level: 'debug', pretty: false, destination: { write: (line: string) => raw.push(line) } });
    logger.warn({ udid: 'X1' }, 'device X1: hot');
    expect(raw).toHaveLength(1);
  });
});

describe("list's notes under the table", () => {
  const row = (serial: string, message?: string): DeviceRow => ({
    udid: serial,
    serial,
    state: 'device',
    status: 'AVAILABLE',
    platform: 'Android',
    up: true,
    message,
  });

  it("give each device with a message its sentence, by its serial, one line each, a phone's own control characters shown as U+FFFD", () => {
    expect(formatNotes([row('A'), row('B')])).toBe('');
    expect(formatNotes([row('A'), row('127.0.0.1:5555', 'USB debugging is not authorized:\n unlock it'), row('EVIL\u001b[2J', 'hot')])).toBe(
      '\n127.0.0.1:5555: USB debugging is not authorized: unlock it\nEVIL\ufffd[2J: hot\n',
    );
  });
});
