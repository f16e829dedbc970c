import { describe, expect, it } from 'vitest';
import type { PausedPort } from '../../../src/features/charge/paused-ports.js';
import type { PortSwitch } from '../../../src/hub/uhubctl.js';
import { captureLogger } from '../../log/capture.js';
import { chargeBed } from './charge-bed.js';

// What charge control says when a hub port will not switch, and when it
// switches on a port an earlier run left off: the port, the phone, the
// tool's own words and what to do (docs/design/statements.md).

const failing = (said: string[], error: string): PortSwitch => ({
  switch: (hub, port, power) => {
    said.push(`${hub}:${port} ${power}`);
    return Promise.reject(new Error(error));
  },
});

const warnings = (lines: () => Array<Record<string, unknown>>) => lines().filter((l) => l.level === 'warn');

describe('charge control: its lines', () => {
  it("a pause whose switch fails: one warning with the port, the phone, the hub tool's error, that the phone still charges and when it is tried again", async () => {
    const { logger, lines } = captureLogger();
    const asked: string[] = [];
    const tool = failing(asked, 'uhubctl: no compatible smart hubs detected at location 1-1');
    const { control, answered } = chargeBed({ DEVICE_AGENT_CHARGE_WAYS: 'UH=uhubctl' }, { UH: { hub: '1-1', port: 2 } }, { logger, ports: { uhubctl: tool } });
    answered('SH', 'UH', 95);
    control.start();
    await control.settled();
    expect(asked).toEqual(['1-1:2 off']);
    const said = warnings(lines);
    expect(said).toHaveLength(1);
    expect(String(said[0]!.msg)).toMatch(
      /^could not switch hub 1-1 port 2 off for UH: uhubctl: no compatible smart hubs detected at location 1-1; its charge is not paused; a pause is tried again in about \d+ s at the earliest$/,
    );
    await control.stop();
  });

  it('a port an earlier run left off: one warning naming it and the phone it paused, then switched on and the file cleared', async () => {
    const { logger, lines } = captureLogger();
    const saved: PausedPort[][] = [];
    const kept = {
      load: (): PausedPort[] => [{ hub: '1-1.4', port: 3, udid: 'R58M1234', way: 'uhubctl' }],
      save: (p: readonly PausedPort[]) => void saved.push([...p]),
    };
    const { control, switched } = chargeBed({ DEVICE_AGENT_CHARGE_WAYS: 'R58M1234=uhubctl' }, { R58M1234: { hub: '1-1.4', port: 3 } }, { logger, kept });
    control.start();
    await control.settled();
    expect(switched).toEqual(['uhubctl 1-1.4:3 on']);
    expect(saved[0]).toEqual([]);
    expect(warnings(lines).map((l) => l.msg)).toEqual([
      'switching hub 1-1.4 port 3 on: an earlier run of the agent left it off for a charge pause of R58M1234',
    ]);
    expect(lines().some((l) => l.msg === 'hub 1-1.4 port 3 switched on')).toBe(true);
    await control.stop();
  });

  it("...and when that switch fails: the tool's error and the command to switch it on by hand", async () => {
    const { logger, lines } = captureLogger();
    const kept = { load: (): PausedPort[] => [{ hub: '1-1.4', port: 3, udid: 'R58M1234', way: 'uhubctl' }], save: () => undefined };
    const tool = failing([], 'uhubctl: Permission denied');
    const { control } = chargeBed({}, {}, { logger, kept, ports: { uhubctl: tool } });
    control.start();
    await control.settled();
    expect(warnings(lines).map((l) => l.msg)).toEqual([
      'switching hub 1-1.4 port 3 on: an earlier run of the agent left it off for a charge pause of R58M1234',
      'could not switch hub 1-1.4 port 3 on (an earlier run left it off for R58M1234): uhubctl: Permission denied; switch it on by hand (uhubctl -l 1-1.4 -p 3 -a on)',
    ]);
    await control.stop();
  });
});
