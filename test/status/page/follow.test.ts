import type { IncomingMessage, ServerResponse } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { follow, type Answer } from '../../../src/status/page/rack.js';
import { FRESH_MS, PageServer } from '../../../src/status/page-serve.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { propertyRuns } from '../../support/property-runs.js';

// The page's promise: a change the daemon's data shows is on every watching page within 2 s. Shown on virtual time with
// the page's own loop (follow) and the status server's own making of the data (PageServer: the rack's when its version
// changes, a phone's at most once each FRESH_MS), on the rack and on a phone's page,
// for any moment of the change, any number of pages at any phase, and any answer time up to 300 ms each way; the real
// browsers (test/browser/rack.test.ts) show the same loop drawing the page.

const PROMISE_MS = 2000;

/** One question to the server, as a browser asks it: `latency` there and back. */
function asker(server: PageServer, time: VirtualTime, latency: number): (url: string, etag: string | undefined) => Promise<Answer> {
  const wait = (ms: number) => new Promise<void>((resolve) => time.schedule(resolve, ms));
  return async (url, etag) => {
    await wait(latency);
    let status = 0;
    let etagAnswered: string | undefined;
    let body = '';
    const res = {
      writeHead(s: number, head: Record<string, string>) {
        status = s;
        etagAnswered = head.etag;
        return res;
      },
      end(b?: Buffer | string) {
        body = b === undefined ? '' : b.toString();
      },
    };
    const req = { url: `/${url}`, method: 'GET', headers: etag ? { 'if-none-match': etag } : {} };
    server.answer(req as unknown as IncomingMessage, res as unknown as ServerResponse, `/${url.split('?')[0]}`);
    await wait(latency);
    if (status === 304) return {};
    if (status !== 200) throw new Error(`HTTP ${status}`);
    return { etag: etagAnswered, body: JSON.parse(body) as unknown };
  };
}

/** Runs the time line to `until`, letting each timer's promises settle before the next fires. */
async function runTo(time: VirtualTime, until: number): Promise<void> {
  while (time.next !== undefined && time.next <= until) {
    time.runUntil(time.next);
    for (let i = 0; i < 20; i++) await Promise.resolve();
  }
  time.runUntil(until);
}

describe('the page follows the daemon', () => {
  it('shows a change on every watching page within 2 s of the data changing, whenever it changes and however the pages are phased', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 9_000 }),
        fc.array(fc.integer({ min: 0, max: 999 }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 0, max: 300 }),
        fc.constantFrom('api/devices', 'api/phone?udid=R5CY743GDFY'),
        async (changeAt, phases, latency, path) => {
          const time = new VirtualTime();
          const version = () => (time.now >= changeAt ? 2 : 1);
          const server = new PageServer(
            () => ({ version: version() }),
            () => String(version()),
            () => time.now,
          );
          const shownAt: number[] = [];
          for (const [i, phase] of phases.entries()) {
            time.schedule(() => {
              void follow(
                () => path,
                asker(server, time, latency),
                (body) => {
                  if ((body as { version: number }).version === 2) shownAt[i] ??= time.now;
                },
                () => undefined,
                { now: () => time.now, sleep: (ms) => new Promise((resolve) => time.schedule(resolve, ms)) },
                () => time.now < changeAt + 5_000,
              );
            }, phase);
          }
          await runTo(time, changeAt + 5_000);
          expect(shownAt.filter((t) => t !== undefined)).toHaveLength(phases.length);
          for (const t of shownAt) expect(t - changeAt).toBeLessThanOrEqual(PROMISE_MS);
        },
      ),
      // And the worst moment for a phone's page: a change just after one page made its data, asked by another just before it grows stale.
      { ...propertyRuns(100), examples: [[301, [0, 699], 300, 'api/phone?udid=R5CY743GDFY']] },
    );
    expect(FRESH_MS).toBe(700);
  });

  it('asks with the ETag of what it shows: an unchanged body is a 304 and is not drawn again; a failed question says the daemon is lost, the next answer that it is back', async () => {
    const time = new VirtualTime();
    let up = true;
    const server = new PageServer(
      () => ({ version: 1 }),
      () => '1',
      () => time.now,
    );
    const ask = asker(server, time, 10);
    const seen: string[] = [];
    const lostSince: Array<number | undefined> = [];
    void follow(
      () => 'api/devices',
      async (url, etag) => {
        seen.push(etag ?? 'none');
        if (!up) throw new Error('connection refused');
        return ask(url, etag);
      },
      () => seen.push('drawn'),
      (since) => lostSince.push(since),
      { now: () => time.now, sleep: (ms) => new Promise((resolve) => time.schedule(resolve, ms)) },
      () => time.now < 10_000,
    );
    await runTo(time, 2_500);
    expect(seen.slice(0, 4)).toEqual(['none', 'drawn', expect.stringMatching(/^".+"$/), seen[2]]);
    up = false;
    await runTo(time, 5_000);
    expect(lostSince).toEqual([expect.any(Number)]);
    up = true;
    await runTo(time, 7_000);
    expect(lostSince).toEqual([expect.any(Number), undefined]);
    expect(seen.filter((s) => s === 'drawn')).toHaveLength(1);
  });
});
