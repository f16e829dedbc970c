// A hub with per-port power switching, for the stand-in uhubctl: an HTTP
// server on loopback that the stand-in (a process of its own, run by the
// agent) asks to switch a port. A port holds a simulated phone: power off
// pulls its cable (its transport drops and it refuses new connections),
// power on plugs it back as a phone that booted afresh (a wedged adbd is
// not wedged any more, one stuck offline answers its handshake). A
// power-only port (a phone on Wi-Fi adb, charged from the hub) leaves the
// phone on adb whatever its power.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
  private readonly ports = new Map<string, { device: SimDevice; powered: boolean; powerOnly: boolean }>();
  private server: Server | undefined;
  private url: string | undefined;

  /** Puts a phone on a hub's port; powerOnly: its data goes another way, so switching the port leaves it on adb. */
  attach(hub: string, port: number, device: SimDevice, options: { powerOnly?: boolean } = {}): void {
    this.ports.set(`${hub}:${port}`, { device, powered: true, powerOnly: options.powerOnly ?? false });
  }

  /** The environment the agent passes on to the stand-in. */
  get env(): Record<string, string> {
    if (!this.url) throw new Error('HubBed is not started');
    return { UHUBCTL_STANDIN_URL: this.url };
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
  }

  private async handle(body: string): Promise<[number, unknown]> {
    const { hub, port, power } = JSON.parse(body) as { hub: string; port: number; power: 'status' | 'off' | 'on' };
    const slot = this.ports.get(`${hub}:${port}`);
    if (!slot) return [404, { error: 'no such hub port' }];
    const { device } = slot;
    if (power === 'off' && slot.powered) {
      slot.powered = false;
      if (!slot.powerOnly) await device.unplug();
    } else if (power === 'on' && !slot.powered) {
      slot.powered = true;
      if (!slot.powerOnly) {
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
