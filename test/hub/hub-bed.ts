// A hub with per-port power switching, for the stand-in uhubctl: an HTTP
// server on loopback that the stand-in (a process of its own, run by the
// agent) asks to switch a port. A port holds a simulated phone: power off
// pulls its cable (its transport drops and it refuses new connections),
// power on plugs it back as a phone that booted afresh (a wedged adbd is
// not wedged any more, one stuck offline answers its handshake). A
// power-only port (a phone on Wi-Fi adb, charged from the hub) leaves the
// phone on adb whatever its power; its battery says it is off power while the
// port is off. A port that keeps power (a hub that says it switched the port
// off and did not: mvp/uhubctl #617) changes nothing for its phone.
//
// The bed also lays out what the real uhubctl needs and the stand-in checks
// (test/hub/uhubctl): a sysfs tree with each hub's busnum and devnum and
// each port's `disable` file, and the hub's device node, in a temporary
// directory (a plain file for the node: a test run without root cannot
// make a character device; the deploy checks make a real one).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimDevice } from '../sim/sim-device.js';

export const HUB_DESCRIPTION = '2109:2817 VIA Labs, Inc. USB2.0 Hub, USB 2.10, 4 ports, ppps';

export interface PortSwitch {
  hub: string;
  port: number;
  power: 'off' | 'on';
  at: number;
}

export class HubBed {
  /** Every switch the stand-in asked for, in order. */
  readonly switches: PortSwitch[] = [];
  private readonly ports = new Map<string, { device: SimDevice; powered: boolean; powerOnly: boolean; keepsPower: boolean }>();
  private server: Server | undefined;
  private url: string | undefined;
  private readonly root = mkdtempSync(join(tmpdir(), 'hub-bed-'));
  private readonly hubs: string[] = [];

  /**
   * Puts a phone on a hub's port; powerOnly: its data goes another way, so
   * switching the port leaves it on adb; keepsPower: the hub says the port is
   * off and keeps it on, data and power.
   */
  attach(hub: string, port: number, device: SimDevice, options: { powerOnly?: boolean; keepsPower?: boolean } = {}): void {
    this.ports.set(`${hub}:${port}`, { device, powered: true, powerOnly: options.powerOnly ?? false, keepsPower: options.keepsPower ?? false });
    if (!this.hubs.includes(hub)) {
      this.hubs.push(hub);
      const devnum = String(this.hubs.length + 1).padStart(3, '0');
      mkdirSync(join(this.root, 'sys', hub), { recursive: true });
      writeFileSync(join(this.root, 'sys', hub, 'busnum'), '1\n');
      writeFileSync(join(this.root, 'sys', hub, 'devnum'), `${Number(devnum)}\n`);
      mkdirSync(join(this.root, 'dev', '001'), { recursive: true });
      writeFileSync(join(this.root, 'dev', '001', devnum), '');
    }
    mkdirSync(join(this.root, 'sys', `${hub}:1.0`, `${hub}-port${port}`), { recursive: true });
    writeFileSync(join(this.root, 'sys', `${hub}:1.0`, `${hub}-port${port}`, 'disable'), '0\n');
  }

  /** The environment the agent passes on to the stand-in. */
  get env(): Record<string, string> {
    if (!this.url) throw new Error('HubBed is not started');
    return { UHUBCTL_STANDIN_URL: this.url, UHUBCTL_STANDIN_SYSFS: join(this.root, 'sys'), UHUBCTL_STANDIN_DEVFS: join(this.root, 'dev') };
  }

  /** The sysfs file the stand-in writes for one port ("1": off). */
  disableFile(hub: string, port: number): string {
    return join(this.root, 'sys', `${hub}:1.0`, `${hub}-port${port}`, 'disable');
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        void this.handle(body).then(([status, answer]) => {
          res.writeHead(status, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(answer));
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
    rmSync(this.root, { recursive: true, force: true });
  }

  private async handle(body: string): Promise<[number, unknown]> {
    const { hub, port, power } = JSON.parse(body) as { hub: string; port: number; power: 'status' | 'off' | 'on' };
    const slot = this.ports.get(`${hub}:${port}`);
    if (!slot) return [404, { error: 'no such hub port' }];
    const { device } = slot;
    if (power === 'off' && slot.powered) {
      slot.powered = false;
      // A hub that keeps power: nothing happens below its word.
      if (!slot.keepsPower) await (slot.powerOnly ? device.setExternalPower(false) : device.unplug());
    } else if (power === 'on' && !slot.powered) {
      slot.powered = true;
      if (slot.keepsPower) {
        // Nothing was cut, so nothing comes back.
      } else if (slot.powerOnly) await device.setExternalPower(true);
      else {
        device.wedge(false);
        // Booted afresh: an adbd stuck before its handshake (offline) answers again.
        if (device.currentMode === 'offline') device.setMode('ready');
        await device.replug();
      }
    }
    if (power !== 'status') this.switches.push({ hub, port, power, at: Date.now() });
    return [200, { description: HUB_DESCRIPTION, device: `18d1:4ee7 Google Pixel 8 Pro ${device.serial}`, powered: slot.powered }];
  }
}
