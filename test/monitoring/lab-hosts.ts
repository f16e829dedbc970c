import { spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentProcess, daemonEnv } from '../e2e/agent-process.js';
import { DaemonBed } from '../e2e/daemon-bed.js';
import { AdbProxy } from '../sim/adb-proxy.js';
import { freePort } from '../sim/adb-server.js';
import type { Profile } from '../sim/profile.js';
import { SimDevice, type SimMode } from '../sim/sim-device.js';
import { GoIosAgentDouble } from '../sim-ios/tunnel-daemons.js';
import { SimUsbmuxd, type SimPhone } from '../sim-ios/usbmuxd.js';

// One simulated lab host as the monitoring tests need it: the real adb
// server with simulated phones, a relay in front of it that gives each
// phone on a USB port the usb path adb's long list carries (test/sim/
// adb-proxy.ts), a sysfs tree with each such phone's serial on its port and a
// kernel log (the USB layer's test inputs), the cloud double, optionally
// the simulated usbmuxd with iPhones and a double of go-ios's tunnel agent,
// and `device-agent run` from the compiled CLI in its own process, with its
// own state directory and a status port picked free.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface HostPhone {
  /** Its USB serial (ro.serialno), which the profile gives. */
  serial: string;
  profile: Profile;
  /** The USB port adb and the sysfs tree place it on (1-1.4); none: a phone over the network. */
  port?: string;
  mode?: SimMode;
}

export interface HostOptions {
  phones: HostPhone[];
  /** /dev/kmsg records for usb.kernelLog. */
  kernelLog?: string;
  /** More settings of the agent (DEVICE_AGENT_*). */
  env?: Record<string, string>;
  /** Files written into its state directory before it starts (a wear history kept from earlier days). */
  state?: Record<string, string>;
  /** iPhones on a simulated usbmuxd, with go-ios's tunnel agent. */
  iPhones?: boolean;
  /** The checkout the agent runs from (default: this one). */
  root?: string;
}

export class SimulatedHost {
  readonly bed = new DaemonBed('pixel-8-pro');
  proxy: AdbProxy | undefined;
  readonly mux = new SimUsbmuxd();
  readonly tunnels = new GoIosAgentDouble();
  readonly phones = new Map<string, SimDevice>();
  agent: AgentProcess | undefined;
  /** HOST:PORT of the agent's /metrics. */
  statusAddress = '';
  private readonly dir = mkdtempSync(join(tmpdir(), 'da-lab-host-'));

  constructor(private readonly options: HostOptions) {}

  async start(): Promise<void> {
    const { options } = this;
    await this.bed.start();
    const proxy = (this.proxy = new AdbProxy({ targetPort: this.bed.adb.port }));
    await proxy.start();
    const sysfs = join(this.dir, 'sysfs');
    mkdirSync(sysfs);
    for (const p of options.phones) {
      const device = new SimDevice({ profile: p.profile, ...(p.mode ? { mode: p.mode } : {}) });
      this.bed.devices.push(device);
      await this.bed.adb.connect(await device.start(), { wait: false });
      await this.bed.adb.waitForState(device.serial, p.mode === 'unauthorized' ? 'unauthorized' : 'device', 20_000);
      this.phones.set(p.serial, device);
      if (p.port === undefined) continue;
      mkdirSync(join(sysfs, p.port));
      writeFileSync(join(sysfs, p.port, 'serial'), `${p.serial}\n`);
      proxy.usbPaths.set(device.serial, p.port);
    }
    writeFileSync(join(this.dir, 'kmsg'), options.kernelLog ?? '');
    const state = join(this.dir, 'state');
    mkdirSync(state);
    for (const [name, text] of Object.entries(options.state ?? {})) writeFileSync(join(state, name), text);
    let ios: Record<string, string> = { DEVICE_AGENT_IOS_DEVELOPER_TUNNEL_DAEMONS: '' };
    if (options.iPhones) {
      await this.mux.start();
      await this.tunnels.start();
      ios = {
        ...this.mux.env,
        DEVICE_AGENT_IOS_DEVELOPER_TUNNEL_DAEMONS: `go-ios=${this.tunnels.url}`,
        DEVICE_AGENT_IOS_DEVELOPER_TOOLS: `go-ios=${this.goIos()},pymobiledevice3=/nonexistent/pymobiledevice3`,
        DEVICE_AGENT_IOS_DEVELOPER_POLL_SECONDS: '2',
      };
    }
    this.statusAddress = `127.0.0.1:${await freePort()}`;
    const env = daemonEnv(proxy.env, this.bed.cloud, {
      ...ios,
      DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
      DEVICE_AGENT_STATUS_LISTEN: this.statusAddress,
      DEVICE_AGENT_STATE_DIR: state,
      DEVICE_AGENT_USB_KERNEL_LOG: join(this.dir, 'kmsg'),
      DEVICE_AGENT_USB_SYSFS_ROOT: sysfs,
      ...options.env,
    });
    const bin = join(options.root ?? ROOT, 'bin', 'device-agent.js');
    this.agent = new AgentProcess(spawn(process.execPath, [bin, 'run'], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
    await this.agent.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)');
  }

  /** A stand-in `ios` printing what go-ios 1.3.2's `ios version` prints (main.go printVersion). */
  private goIos(): string {
    const bin = join(this.dir, 'ios');
    writeFileSync(bin, `#!/bin/sh\n[ "$1" = version ] || exit 1\nprintf '%s\\n' '{"version":"1.3.2"}'\n`);
    chmodSync(bin, 0o755);
    return bin;
  }

  /** An iPhone plugged with a live tunnel on go-ios's agent. */
  plugIPhone(udid: string): SimPhone {
    const phone = this.mux.plug({ profile: 'iphone-15-ios17', udid });
    this.tunnels.newTunnel(phone.udid);
    return phone;
  }

  async metricsText(): Promise<string> {
    return (await fetch(`http://${this.statusAddress}/metrics`)).text();
  }

  async stop(): Promise<void> {
    await this.agent?.stop('SIGTERM').catch(() => undefined);
    this.agent = undefined;
    await this.proxy?.stop();
    if (this.options.iPhones) {
      await this.mux.dispose();
      await this.tunnels.stop();
    }
    await this.bed.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A copy of this checkout's compiled CLI installed as release `version` (package.json's version, a build-number file
 * as the package build writes it): the agent of a host an upgrade has not reached yet. The code is this checkout's;
 * only what it says it is differs, which is all the version rules read.
 */
export function olderRelease(version: string, revision: string): { root: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'da-older-release-'));
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(root, 'package.json'), JSON.stringify({ ...pkg, version }, null, 2));
  writeFileSync(join(root, 'build-number'), `${revision}\n`);
  for (const dir of ['bin', 'config', 'dist/src']) cpSync(join(ROOT, dir), join(root, dir), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
