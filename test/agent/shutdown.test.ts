import { describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/cloud/client.js';
import { captureLogger } from '../log/capture.js';
import { reportBed } from './bed.js';

// At shutdown the report in flight gets shutdownTimeoutSeconds to finish.
// When it does not, the line says what it was still waiting for, as the
// agent knows it, and what to do: the cloud's answer at its host, or the
// inventories of named phones from their source.

async function stopWithin(bed: ReturnType<typeof reportBed>, limitMs: number): Promise<void> {
  bed.loop.stop();
  const settling = bed.loop.settle(limitMs);
  await bed.advance(limitMs + 100);
  await settling;
}

const abandoned = (lines: () => Array<Record<string, unknown>>) =>
  lines().filter((l) => String(l.msg).startsWith('the report in flight did not finish within'));

describe('the report in flight at shutdown', () => {
  it('a cloud that never answers: the line names the PUT and the cloud host, and what to check', async () => {
    const { logger, lines } = captureLogger();
    const bed = reportBed({ logger });
    bed.cloud.hanging = true;
    bed.loop.start();
    bed.source.list(['P1'], 'device', true);
    await bed.advance(1_000);
    expect(bed.cloud.bodies).toHaveLength(1);
    await stopWithin(bed, 5_000);
    const [line, ...more] = abandoned(lines);
    expect(more).toEqual([]);
    expect(line!.level).toBe('warn');
    expect(line!.msg).toBe(
      "the report in flight did not finish within 5 s: it was still waiting for the cloud's answer to PUT /devices at cloud.mem.test " +
        '(check that this host reaches it: device-agent doctor); it is abandoned and sent again at the next start',
    );
  });

  it('a phone whose inventory never answers: the line names the phone and its source, not the cloud', async () => {
    const { logger, lines } = captureLogger();
    const bed = reportBed({ logger });
    bed.source.hung.add('P2');
    bed.loop.start();
    bed.source.list(['P1', 'P2'], 'device', true);
    await bed.advance(1_000);
    expect(bed.cloud.bodies).toEqual([]);
    await stopWithin(bed, 5_000);
    const [line] = abandoned(lines);
    expect(line!.msg).toBe(
      'the report in flight did not finish within 5 s: it was still waiting for the inventory of P2 from mem:android ' +
        '(a slow or hung phone: see device-agent list; replug or reboot it if this lasts); it is abandoned and sent again at the next start',
    );
  });

  it('a report that finishes in time: no such line', async () => {
    const { logger, lines } = captureLogger();
    const bed = reportBed({ logger });
    bed.loop.start();
    bed.source.list(['P1'], 'device', true);
    await bed.advance(1_000);
    expect(bed.sent()).toEqual([['P1']]);
    await stopWithin(bed, 5_000);
    expect(abandoned(lines)).toEqual([]);
  });

  it('the daemon names its cloud by the host and port of baseUrl', () => {
    expect(new CloudClient({ baseUrl: 'https://cloud.example.com:8443/v1', username: 'u', apiKey: 'k' }).host).toBe('cloud.example.com:8443');
    expect(new CloudClient({ baseUrl: 'https://cloud.example.com/v1/', username: 'u', apiKey: 'k' }).host).toBe('cloud.example.com');
  });
});
