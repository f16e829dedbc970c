import { describe, expect, it } from 'vitest';
import { hubStatusProblem, lastingFailure, parseHubStatus, portsByHub } from '../../src/hub/status.js';

// uhubctl's status listing (the README of mvp/uhubctl, and test/hub/SOURCES.md) and its failures, read without I/O.

const LISTING = [
  'Current status for hub 1-1.4 [2109:2817 VIA Labs, Inc. USB2.0 Hub, USB 2.10, 4 ports, ppps]',
  '  Port 1: 0100 power',
  '  Port 2: 0100 power',
  '  Port 3: 0103 power enable connect [18d1:4ee7 Google Pixel 8 Pro 38201FDH2000CQ]',
  '  Port 4: 0000 off',
  'Current status for hub 2 [1d6b:0002 Linux Foundation 2.0 root hub, USB 2.00, 1 ports, ppps]',
  '  Port 1: 0503 power highspeed enable connect [2109:2817 VIA Labs, Inc. USB2.0 Hub]',
].join('\n');

describe("uhubctl's status listing", () => {
  it('reads each hub and its ports', () => {
    expect(parseHubStatus(LISTING)).toEqual(
      new Map([
        ['1-1.4', new Set([1, 2, 3, 4])],
        ['2', new Set([1])],
      ]),
    );
  });

  it("says what is missing: the hub (in the tool's words) or a port", () => {
    expect(hubStatusProblem('1-1.4', [3, 4], LISTING)).toBeUndefined();
    expect(hubStatusProblem('1-1.4', [3, 5, 6], LISTING)).toBe('hub 1-1.4 has no port 5, 6 (it lists 1, 2, 3, 4)');
    expect(hubStatusProblem('1-1.9', [1], 'No compatible devices detected at location 1-1.9!\nRun with -h to get usage info.\n')).toBe(
      'hub 1-1.9 is not found by the hub tool (it says: No compatible devices detected at location 1-1.9!)',
    );
    expect(hubStatusProblem('1-1.9', [1], '')).toBe('hub 1-1.9 is not found by the hub tool');
  });

  it('groups the mapped ports by hub', () => {
    expect(
      portsByHub([
        { hub: '1-1', port: 3 },
        { hub: '2', port: 1 },
        { hub: '1-1', port: 1 },
      ]),
    ).toEqual(
      new Map([
        ['1-1', [1, 3]],
        ['2', [1]],
      ]),
    );
  });
});

describe('failures no retry fixes', () => {
  it('are a hub not found, access denied, a tool not there; a deadline or a busy hub may pass', () => {
    expect(lastingFailure('uhubctl -l 1-1.4 -p 3 -a cycle: exit status 1: No compatible devices detected at location 1-1.4!')).toMatch(/finds no hub/);
    expect(lastingFailure('uhubctl -l 1-1 -p 3 -a cycle: exit status 1: There were permission problems while accessing USB.')).toMatch(/denied/);
    expect(lastingFailure('uhubctl -l 1-1 -p 3 -a cycle: ENOENT')).toMatch(/not there/);
    expect(lastingFailure('hub 1-1 port 9 is not in hubPorts: the helper switches only the ports mapped to a phone')).toMatch(/not mapped/);
    expect(lastingFailure('uhubctl -l 1-1 -p 3 -a cycle: no end within 30 s')).toBeUndefined();
    expect(lastingFailure('uhubctl -l 1-1 -p 3 -a cycle: exit status 1: Failed to set port status by writing to /sys/x (EBUSY).')).toBeUndefined();
  });
});
