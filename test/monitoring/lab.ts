import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DaemonBed } from '../e2e/daemon-bed.js';
import { freePort } from '../sim/adb-server.js';
import { loadProfile, withSerial, type Profile } from '../sim/profile.js';
import type { SimDevice, SimMode } from '../sim/sim-device.js';
import { PrometheusServer } from './prometheus-server.js';

// A monitored lab: the real adb server with simulated phones, the cloud
// double, `device-agent run` as its own process serving /metrics, and a real
// Prometheus scraping it every second. The phones replay a recorded Smartron
// T5911 whose battery temperature a test sets.

const PROFILE = 'smartron-t5911-android8.1';

/** The recorded phone with its battery at `tenths` of a °C, as dumpsys prints it. */
export function phoneProfile(serial: string, tenths: number): Profile {
  const profile = withSerial(loadProfile(PROFILE), serial);
  const commands = new Map(profile.commands);
  const battery = commands.get('dumpsys battery')!;
  commands.set('dumpsys battery', { ...battery, output: battery.output.replace(/temperature: \d+/, `temperature: ${tenths}`) });
  // The bugreport it comes from has no /proc/uptime: invented, in the recorded form of the POCO profile's.
  commands.set('cat /proc/uptime', { output: '5000.10 9000.20\n', exitCode: 0 });
  return { ...profile, commands };
}

export interface LabPhone {
  serial: string;
  /** Battery temperature in tenths of a °C (default 250). */
  tenths?: number;
  mode?: SimMode;
}

export class MonitoredLab {
  readonly bed = new DaemonBed(PROFILE);
  readonly prometheus = new PrometheusServer();
  readonly phones = new Map<string, SimDevice>();
  /** HOST:PORT of the agent's /metrics. */
  statusAddress = '';
  private agentEnv: Record<string, string> = {};

  /** `env`: more settings of the agent (DEVICE_AGENT_*). */
  async start(phones: LabPhone[], ruleFiles: string[], env: Record<string, string> = {}): Promise<void> {
    await this.bed.start();
    for (const p of phones) {
      const device = await this.bed.plug(p.serial, p.mode ? { mode: p.mode } : {});
      await device.setProfile(phoneProfile(p.serial, p.tenths ?? 250));
      this.phones.set(p.serial, device);
    }
    // A report every 2 s, so that a battery change reaches /metrics within a
    // few seconds; a port and a state directory of its own, kept across a
    // restart as a service keeps them.
    this.statusAddress = `127.0.0.1:${await freePort()}`;
    this.agentEnv = {
      DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
      DEVICE_AGENT_JITTER_SECONDS: '0',
      DEVICE_AGENT_STATUS_LISTEN: this.statusAddress,
      DEVICE_AGENT_STATE_DIR: mkdtempSync(join(tmpdir(), 'da-state-')),
      ...env,
    };
    await this.runAgent();
    await this.prometheus.start({ targets: [this.statusAddress], ruleFiles });
  }

  private async runAgent(): Promise<void> {
    const agent = this.bed.run(this.agentEnv);
    await agent.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)');
  }

  /** Stops the agent as systemd does (SIGTERM) and starts it again with the same settings and state. */
  async restartAgent(): Promise<void> {
    const run = await this.bed.agent!.stop('SIGTERM');
    if (run.code !== 0) throw new Error(`the agent exited with ${run.code ?? run.signal} on SIGTERM:\n${run.stderr}`);
    await this.runAgent();
  }

  /** Pulls the phone's cable: adb forgets it at once. */
  async unplug(serial: string): Promise<void> {
    await this.bed.adb.disconnect(this.phones.get(serial)!.port);
  }

  async metricsText(): Promise<string> {
    return (await fetch(`http://${this.statusAddress}/metrics`)).text();
  }

  async setTemperature(serial: string, tenths: number): Promise<void> {
    await this.phones.get(serial)!.setProfile(phoneProfile(serial, tenths));
  }

  async stop(): Promise<void> {
    await this.prometheus.stop();
    await this.bed.stop();
    if (this.agentEnv.DEVICE_AGENT_STATE_DIR) rmSync(this.agentEnv.DEVICE_AGENT_STATE_DIR, { recursive: true, force: true });
  }
}
