import { describe, expect, it } from 'vitest';
import { captureLogger } from '../log/capture.js';
import { reportBed } from './bed.js';

// hiddenDevices entries that hide nothing, on the daemon's report path on virtual time (issue 61): said once,
// after the first report made from a complete listing, never from a listing a source did not answer.

describe('hiddenDevices naming no device, in the daemon', () => {
  it('is said once, after the first complete listing, not before it and not at every report', async () => {
    const log = captureLogger('info');
    const bed = reportBed({ logger: log.logger, hiddenDevices: ['HIDE0001', 'GHOST001'], schedule: '* * * * *' });
    const said = () => log.lines().filter((l) => String(l.msg).startsWith('hiddenDevices (DEVICE_AGENT_HIDDEN_DEVICES) names'));
    // The source does not answer at first: its phones are unknown, not absent.
    bed.source.fail = new Error('adb went away');
    bed.loop.start();
    // adb connected (its listing complete 1 s later, as a real one's 10 s), and lists two phones.
    bed.source.emit('connected', 1_000);
    bed.source.list(['HIDE0001', 'SHOW0002'], 'device', true);
    await bed.advance(15_000);
    expect(bed.cloud.bodies.length).toBeGreaterThan(0);
    expect(said()).toEqual([]);

    bed.source.fail = undefined;
    await bed.advance(5 * 60_000, 1_000);
    const bodies = bed.cloud.bodies.filter((b) => b.body.devices.length > 0);
    expect(bodies.length).toBeGreaterThan(2);
    // The entry that names a phone hides it; the other is named once, whatever the reports since.
    expect(bodies.at(-1)!.body.devices.map((d) => `${d.udid}:${d.isHidden}`)).toEqual(['HIDE0001:true', 'SHOW0002:false']);
    expect(said().map((l) => l.msg)).toEqual([
      expect.stringMatching(/^hiddenDevices \(DEVICE_AGENT_HIDDEN_DEVICES\) names GHOST001, which no device on this host has \(2 listed\)/),
    ]);
    expect(said()[0]!.level).toBe('warn');
  });
});
