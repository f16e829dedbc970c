import { DaemonBed } from '../e2e/daemon-bed.js';
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

  /** `env`: more settings of the agent (DEVICE_AGENT_*). */
  async start(phones: LabPhone[], ruleFiles: string[], env: Record<string, string> = {}): Promise<void> {
    await this.bed.start();
    for (const p of phones) {
      const device = await this.bed.plug(p.serial, p.mode ? { mode: p.mode } : {});
      await device.setProfile(phoneProfile(p.serial, p.tenths ?? 250));
      this.phones.set(p.serial, device);
    }
    // A report every 2 s, so that a battery change reaches /metrics within a few seconds.
    const agent = this.bed.run({ DEVICE_AGENT_SCHEDULE: '*/2 * * * * *', DEVICE_AGENT_JITTER_SECONDS: '0', DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0', ...env });
    const line = await agent.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)');
    this.statusAddress = String(line.listen);
    await this.prometheus.start({ targets: [this.statusAddress], ruleFiles });
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
  }
}
