import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonEnv, runAgent, type AgentProcess } from '../e2e/agent-process.js';
import { DaemonBed } from '../e2e/daemon-bed.js';
import { privateCa } from '../proxies/private-ca.js';
import { AdbProxy } from '../sim/adb-proxy.js';
import { SimDevice } from '../sim/sim-device.js';
import { sleep } from '../support/wait.js';
import { axeViolations, BROWSERS, launch, openPage, waitForText } from './browsers.js';
import { READY_GLOBAL, readyPhone, stateWithHistory, statusOf } from './lab.js';

// The status page in Debian's Chromium and Firefox ESR, both watching the same daemon: the real adb server with
// simulated phones placed on hub ports by the usb paths adb's long listing gives them (test/sim/adb-proxy.ts), the cloud
// double, `device-agent run` as its own process. The bounds here are hang guards, at least 3 times what each wait takes
// alone; that a change the daemon's data shows is on the page within 2 s is test/status/page/follow.test.ts's, on
// virtual time (the page asks every second; the rack's data is made again when a report or the minute changes it).

const bed = new DaemonBed();
const { cloud } = bed;
let proxy: AdbProxy;
const browsers: Array<{ name: string; browser: Browser }> = [];

const HUB_NAME = 'rack B shelf 2 left hub';
const HOSTILE = '<img src=x onerror=alert(1)>';

beforeAll(async () => {
  await bed.start();
  proxy = new AdbProxy({ targetPort: bed.adb.port });
  await proxy.start();
  // Both at once: Firefox takes tens of seconds to make its profile on a loaded machine.
  browsers.push(...(await Promise.all(BROWSERS.map(async (k) => ({ name: k.name, browser: await launch(k) })))));
}, 180_000);
afterAll(async () => {
  for (const b of browsers) await b.browser.close().catch(() => undefined);
  await proxy.stop();
  await bed.stop();
}, 60_000);

/** A ready phone plugged in, which adb's long list places on `port` (none: a network phone). */
async function plug(serial: string, port?: string, props: Record<string, string> = {}): Promise<SimDevice> {
  const device = new SimDevice({ profile: readyPhone(serial, READY_GLOBAL, props) });
  bed.devices.push(device);
  await bed.adb.connect(await device.start());
  await bed.adb.waitForState(device.serial, 'device', 20_000);
  if (port) proxy.usbPaths.set(device.serial, port);
  return device;
}

function run(env: Record<string, string>): AgentProcess {
  return bed.run({ ...proxy.env, DEVICE_AGENT_SCHEDULE: '*/2 * * * * *', DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0', ...env });
}

/** Every phone tile of the page: its link, and its text. */
function tiles(page: Page): Promise<Array<{ href: string; text: string }>> {
  return page.$$eval('li.tile', (lis) =>
    lis.map((li) => ({ href: li.querySelector('a')?.getAttribute('href') ?? '', text: (li as HTMLElement).innerText.replace(/\s+/g, ' ') })),
  );
}

/** Each browser's page, at the same address. */
async function pages(url: string): Promise<Array<{ name: string; page: Page; dialogs: string[] }>> {
  return Promise.all(
    browsers.map(async ({ name, browser }) => {
      const { page, dialogs } = await openPage(browser);
      await page.goto(url);
      return { name, page, dialogs };
    }),
  );
}

/** Waits in every browser until its page's text passes `check`. */
async function allShow(watching: Array<{ name: string; page: Page }>, check: (text: string) => boolean, timeoutMs: number, what: string): Promise<void> {
  await Promise.all(watching.map(({ name, page }) => waitForText(page, check, timeoutMs, `${what} (${name})`)));
}

describe('the status page in Chromium and Firefox ESR', () => {
  it('shows every phone on its port with the state list --json gives; an unplug, a quarantine and its release, a readiness failure, a cloud outage and the daemon gone each appear; axe finds nothing serious', async () => {
    const state = mkdtempSync(join(tmpdir(), 'page-state-'));
    const a = await plug('RACK0001', '1-1.4.2');
    const b = await plug('RACK0002', '1-1.4.3');
    const c = await plug('RACK0003', '2-1.1');
    await plug('NET00004');
    stateWithHistory(state, [
      { udid: 'RACK0001', port: '1-1.4.2' },
      { udid: 'RACK0002', port: '1-1.4.3' },
      { udid: 'RACK0003', port: '2-1.1' },
      { udid: 'NET00004' },
    ]);
    const env = {
      DEVICE_AGENT_STATE_DIR: state,
      DEVICE_AGENT_HUB_NAMES: `1-1.4=${HUB_NAME}`,
      // One failure of its own takes a phone out: the cloud refusing it, below.
      DEVICE_AGENT_QUARANTINE_FAILURES: '1',
      DEVICE_AGENT_SLOW_FACTS_REFRESH_SECONDS: '10',
    };
    const agent = run(env);
    const url = `http://${await statusOf(agent)}/`;
    const watching = await pages(url);
    await allShow(watching, (t) => ['RACK0001', 'RACK0002', 'RACK0003', 'NET00004'].every((s) => t.includes(s)), 60_000, 'the four phones');

    // The same instant as list --json: the page's rows are the daemon's, in list's shape.
    const listed = await runAgent(['list', '--json'], daemonEnv(proxy.env, cloud, env));
    expect(listed.code, listed.stderr).toBe(0);
    const rows = JSON.parse(listed.stdout) as Array<{ udid: string; serial: string; state: string; usb?: string; hubName?: string; model?: string }>;
    const data = (await (await fetch(`${url}api/devices`)).json()) as {
      rows: typeof rows;
      rack: Array<{ bus: number; hubs: Array<{ hub: string; name?: string }> }>;
    };
    const shape = (r: (typeof rows)[number]) => [r.udid, r.serial, r.state, r.usb, r.hubName, r.model];
    expect(data.rows.map(shape).sort()).toEqual(rows.map(shape).sort());
    expect(rows.find((r) => r.udid === 'RACK0001')?.hubName).toBe(HUB_NAME);
    expect(data.rack.map((bus) => [bus.bus, bus.hubs.map((h) => `${h.hub} ${h.name ?? ''}`)])).toEqual([
      [1, [`1-1.4 ${HUB_NAME}`]],
      [2, ['2-1 ']],
    ]);
    for (const { name, page } of watching) {
      const shown = await tiles(page);
      for (const r of rows) {
        const t = shown.find((x) => x.href === `#${encodeURIComponent(r.udid)}`);
        expect(t?.text, `${name}: ${r.udid}`).toContain(`${r.state} · `);
        if (r.usb) expect(t?.text, `${name}: ${r.udid}`).toContain(`port ${r.usb}`);
        expect(t?.text, `${name}: ${r.udid}`).toContain(r.serial);
      }
      // Laid out as the lab is: the hub by its name, its two ports' phones under it.
      const text = await page.$eval('main', (m) => m.innerText);
      expect(text, name).toMatch(
        new RegExp(`USB bus 1\\s+hub 1-1\\.4: ${HUB_NAME}[^]*RACK0001[^]*RACK0002[^]*USB bus 2[^]*RACK0003[^]*network phones[^]*NET00004`),
      );
      expect(await axeViolations(page), `${name}: the rack`).toEqual([]);
    }

    // A phone's page, reached with the keyboard: its facts, its timeline, what to do.
    for (const { name, page } of watching) {
      // Tab from the top to its link (the first of the rack), then Enter.
      for (let i = 0; i < 10 && (await page.evaluate(() => document.activeElement?.getAttribute('href'))) !== '#RACK0001'; i++) {
        await page.keyboard.press('Tab');
      }
      await page.keyboard.press('Enter');
      // Its flight recorder's ring, readable: its inventories as it answered them.
      await waitForText(page, (t) => t.includes('What to do') && /The last events[^]*inventory answered/.test(t), 30_000, `the phone's page (${name})`);
      expect(await axeViolations(page), `${name}: a phone's page`).toEqual([]);
    }
    if (process.env.UPDATE_DOCS === '1') {
      const chromium = watching.find((w) => w.name === 'chromium')!.page;
      await chromium.goto(url);
      await waitForText(chromium, (t) => t.includes('NET00004'), 30_000, 'the rack');
      writeFileSync(new URL('../../docs/images/rack.png', import.meta.url), await chromium.screenshot({ fullPage: true }));
    }
    for (const { page } of watching) await page.goto(url);
    await allShow(watching, (t) => t.includes('NET00004'), 30_000, 'the rack again');

    // Unplugged: its tile leaves the rack.
    await c.unplug();
    await bed.adb.disconnect(c.port);
    await allShow(watching, (t) => !t.includes('RACK0003'), 45_000, 'RACK0003 gone');

    // Quarantined for the cloud's refusal: why, until when, the command that releases it; then released by that command.
    cloud.failDevices([{ udid: 'RACK0002', message: 'refused by the test' }]);
    await allShow(
      watching,
      (t) =>
        /Needs someone \(1\)[^]*RACK0002[^]*blamed on its cloud[^]*quarantined/.test(t) &&
        t.includes(`device-agent quarantine release ${b.serial}`) &&
        t.includes('incident: quarantine'),
      45_000,
      'the quarantine, first',
    );
    cloud.clearFailedDevices();
    const released = await runAgent(['quarantine', 'release', b.serial], daemonEnv(proxy.env, cloud, env));
    expect(released.code, released.stderr).toBe(0);
    await allShow(watching, (t) => !t.includes('quarantine release'), 45_000, 'the release');

    // Readiness failing: its stay awake turned off, read at the next slow read (10 s here).
    await a.setProfile(readyPhone('RACK0001', READY_GLOBAL.replace('stay_on_while_plugged_in=7', 'stay_on_while_plugged_in=0')));
    await allShow(watching, (t) => /not ready: [^\n]*stay/i.test(t), 60_000, 'RACK0001 not ready');

    // The cloud down: the host line says the last report failed, and stops saying so once one is delivered.
    cloud.failNext({ status: 503, times: 100_000 });
    await allShow(watching, (t) => t.includes('the last report failed'), 60_000, 'the failed report');
    cloud.resetFaults();
    await allShow(watching, (t) => !t.includes('the last report failed'), 60_000, 'a report delivered again');

    // The daemon gone: the page says it lost it.
    await agent.stop('SIGTERM', 15_000);
    bed.agent = undefined;
    await allShow(watching, (t) => t.includes('Lost the daemon'), 30_000, 'the daemon lost');
    for (const { name, dialogs } of watching) expect(dialogs, name).toEqual([]);
    for (const { page } of watching) await page.close();
  }, 600_000);

  it('a hostile model name and serial render as text: escaping alone keeps them so (CSP taken off on the way), and CSP alone blocks them (put in as markup)', async () => {
    await bed.reset();
    const hostile = await plug(HOSTILE, '1-1.5.1', { 'ro.product.model': HOSTILE, 'ro.product.marketname': HOSTILE });
    const agent = run({});
    const status = await statusOf(agent);
    const noCsp = await withoutCsp(status);
    try {
      for (const [label, url] of [
        ['CSP off', `http://127.0.0.1:${noCsp.port}/`],
        ['CSP on', `http://${status}/`],
      ] as const) {
        const watching = await pages(url);
        await allShow(watching, (t) => t.includes(HOSTILE), 60_000, `the hostile phone (${label})`);
        for (const { name, page, dialogs } of watching) {
          // Shown as its characters, in its tile's heading, and made no element.
          const heading = await page.$eval(`a[href="#${encodeURIComponent(HOSTILE)}"]`, (a) => a.textContent);
          expect(heading, `${name} ${label}`).toBe(`${HOSTILE} ${HOSTILE}`);
          expect(hostile.serial).not.toBe(HOSTILE);
          expect(await page.$$eval('main img', (imgs) => imgs.length), `${name} ${label}`).toBe(0);
          // Its own page, by its udid in the hash.
          await page.goto(`${url}#${encodeURIComponent(HOSTILE)}`);
          await waitForText(page, (t) => t.includes('What to do'), 30_000, `the hostile phone's page (${name} ${label})`);
          await sleep(1500);
          expect(dialogs, `${name} ${label}`).toEqual([]);
        }
        // The model as markup, past the escaping: with CSP its handler does not run; without, it does (the test can see it).
        for (const { name, page, dialogs } of watching) {
          await page.evaluate((html) => document.querySelector('main')!.insertAdjacentHTML('beforeend', html), HOSTILE);
          await sleep(1500);
          expect(dialogs, `${name} ${label}: markup put in`).toEqual(label === 'CSP on' ? [] : ['1']);
          await page.close();
        }
      }
    } finally {
      noCsp.server.close();
      await agent.stop('SIGTERM', 15_000);
      bed.agent = undefined;
    }
  }, 300_000);

  it('behind TLS and basic authentication: refused without a password, with a wrong one and over plain HTTP, shown with them', async () => {
    await bed.reset();
    await plug('TLS00001', '1-1.4.1');
    const ca = privateCa('Status Page Test CA', ['localhost', '127.0.0.1']);
    const dir = mkdtempSync(join(tmpdir(), 'page-web-'));
    writeFileSync(join(dir, 'server.crt'), ca.serverCert);
    writeFileSync(join(dir, 'server.key'), ca.serverKey);
    const hash = bcrypt.hashSync('rack pass', 10);
    writeFileSync(join(dir, 'web.yml'), `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  tech: '${hash}'\n`);
    const agent = run({ DEVICE_AGENT_STATUS_WEB_CONFIG_FILE: join(dir, 'web.yml') });
    const status = await statusOf(agent);
    try {
      // Every path of the page is refused without the password, the data as the shell.
      for (const path of ['/', '/rack.js', '/api/devices', '/api/phone?udid=TLS00001']) expect(await statusCode(`https://${status}${path}`), path).toBe(401);
      for (const { name, browser } of browsers) {
        const { page } = await openPage(browser);
        // A wrong password: the browser gives it once, is refused, and shows the refusal.
        await page.authenticate({ username: 'tech', password: 'wrong pass' });
        const refused = await page.goto(`https://${status}/`);
        expect(refused?.status(), name).toBe(401);
        expect(await page.$('main'), name).toBeNull();
        await expect(page.goto(`http://${status}/`), name).rejects.toThrow();
        await page.authenticate({ username: 'tech', password: 'rack pass' });
        const shown = await page.goto(`https://${status}/`);
        expect(shown?.status(), name).toBe(200);
        await waitForText(page, (t) => t.includes('TLS00001'), 60_000, `the phone behind TLS (${name})`);
        await page.close();
      }
    } finally {
      await agent.stop('SIGTERM', 15_000);
      bed.agent = undefined;
    }
  }, 300_000);
});

/** A relay to the status endpoint that takes the Content-Security-Policy off its answers: escaping alone then guards the page. */
async function withoutCsp(status: string): Promise<{ server: Server; port: number }> {
  const [host, port] = [status.slice(0, status.lastIndexOf(':')), Number(status.slice(status.lastIndexOf(':') + 1))];
  const server = createServer((req, res) => {
    const out = request({ host, port, path: req.url, method: req.method, headers: { ...req.headers, host: status } }, (answer) => {
      const headers = { ...answer.headers };
      delete headers['content-security-policy'];
      res.writeHead(answer.statusCode ?? 502, headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** The status of a GET over TLS, the certificate unchecked (the test's own). */
function statusCode(url: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    httpsGet(url, { rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).on('error', reject);
  });
}
