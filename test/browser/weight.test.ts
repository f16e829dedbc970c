import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { daemonEnv, startAgent, type AgentProcess } from '../e2e/agent-process.js';
import { SimFarm } from '../sim/farm.js';
import { BROWSERS, launch, openPage, waitForText } from './browsers.js';
import { readyPhone, stateWithHistory, statusOf } from './lab.js';

// The first view of a 60-phone host, as a browser fetches it: the shell, the style, the script and the first data, with
// a day of in-service history per phone (kept in the state directory as the daemon keeps it) and every hub named. At
// most 150 KB transferred, in each browser.

const PHONES = 60;
const LIMIT_BYTES = 150 * 1024;

const cloud = new CloudDouble();
const serials = Array.from({ length: PHONES }, (_, i) => `WEIGHT${String(i).padStart(2, '0')}`);
/** 8 hubs of 7 ports on two buses, and 4 phones over the network. */
const portOf = (i: number): string | undefined => (i < 56 ? `${1 + Math.floor(i / 28)}-1.${1 + (Math.floor(i / 7) % 4)}.${1 + (i % 7)}` : undefined);
const farm = new SimFarm({ devices: serials.map((serial) => ({ serial, profile: readyPhone(serial) })), proxy: true, readyTimeoutMs: 180_000 });
let agent: AgentProcess | undefined;
const browsers: Browser[] = [];

beforeAll(async () => {
  await cloud.start();
  await farm.start();
  farm.devices.forEach((d, i) => {
    const port = portOf(i);
    if (port) farm.proxy!.usbPaths.set(d.serial, port);
  });
  browsers.push(...(await Promise.all(BROWSERS.map((k) => launch(k)))));
}, 300_000);
afterAll(async () => {
  for (const b of browsers) await b.close().catch(() => undefined);
  await agent?.stop('SIGTERM', 15_000).catch(() => undefined);
  await farm.stop();
  await cloud.stop();
}, 60_000);

describe('the status page of a 60-phone host', () => {
  it('weighs at most 150 KB transferred for its first view, in Chromium and Firefox ESR', async () => {
    const state = stateWithHistory(
      join(mkdtempSync(join(tmpdir(), 'page-weight-')), 'state'),
      serials.map((udid, i) => ({ udid, ...(portOf(i) && { port: portOf(i) }) })),
    );
    const hubNames = ['1-1.1', '1-1.2', '1-1.3', '1-1.4', '2-1.1', '2-1.2', '2-1.3', '2-1.4'].map(
      (hub, i) => `${hub}=rack ${'ABCD'[i % 4]} shelf ${1 + (i % 3)} hub ${i + 1}`,
    );
    agent = startAgent(
      ['run'],
      daemonEnv(farm.env, cloud, { DEVICE_AGENT_STATE_DIR: state, DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0', DEVICE_AGENT_HUB_NAMES: hubNames.join(',') }),
    );
    const url = `http://${await statusOf(agent)}/`;
    await agent.waitForLog((l) => l.msg === 'report delivered', 240_000);
    for (const [k, browser] of browsers.entries()) {
      const { page } = await openPage(browser);
      await page.goto(url);
      await waitForText(page, (t) => serials.every((s) => t.includes(s)), 60_000, `the ${PHONES} phones (${BROWSERS[k]!.name})`);
      const bytes = await page.evaluate(() => {
        const [nav] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
        const firsts = new Map<string, number>();
        for (const r of performance.getEntriesByType('resource') as PerformanceResourceTiming[]) if (!firsts.has(r.name)) firsts.set(r.name, r.transferSize);
        return { page: nav!.transferSize, resources: Object.fromEntries(firsts) };
      });
      const total = bytes.page + Object.values(bytes.resources).reduce((a, b) => a + b, 0);
      console.log(`${BROWSERS[k]!.name}: first view of ${PHONES} phones ${total} bytes transferred`, bytes);
      // Its own three, and the icon a browser asks for (a 404), all from the host.
      expect(Object.keys(bytes.resources).map((r) => new URL(r).pathname)).toEqual(expect.arrayContaining(['/api/devices', '/rack.css', '/rack.js']));
      expect(Object.keys(bytes.resources).every((r) => new URL(r).origin === new URL(url).origin)).toBe(true);
      expect(Object.values(bytes.resources).every((b) => b > 0)).toBe(true);
      expect(total).toBeLessThanOrEqual(LIMIT_BYTES);
      await page.close();
    }
  }, 600_000);
});
