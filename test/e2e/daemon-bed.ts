import { CloudDouble, type CloudDoubleOptions } from '../cloud-double/cloud-double.js';
import { AdbServer } from '../sim/adb-server.js';
import { loadProfile, withProps, withSerial } from '../sim/profile.js';
import { SimDevice, type SimDeviceOptions } from '../sim/sim-device.js';
import { type AgentProcess, daemonEnv, startAgent } from './agent-process.js';

export interface PlugOptions extends Partial<Omit<SimDeviceOptions, 'profile'>> {
  /** Recorded profile to play (default: the bed's). */
  profile?: string;
  /** Properties to override in its getprop answers (not in its adb banner). */
  props?: Record<string, string>;
}

/**
 * The daemon's test bed: a real adb server with simulated devices, the cloud
 * double, and `device-agent run` as its own process. One per test file;
 * reset() between tests, stop() at the end.
 */
export class DaemonBed {
  readonly adb = new AdbServer();
  readonly cloud: CloudDouble;
  readonly devices: SimDevice[] = [];
  agent: AgentProcess | undefined;

  constructor(
    private readonly profile = 'pixel-8-pro',
    cloudOptions: CloudDoubleOptions = {},
  ) {
    this.cloud = new CloudDouble(cloudOptions);
  }

  async start(): Promise<void> {
    await this.adb.start();
    await this.cloud.start();
  }

  /** Kills the agent, unplugs every device and clears the cloud's faults and records. */
  async reset(): Promise<void> {
    await this.agent?.stop('SIGKILL').catch(() => undefined);
    this.agent = undefined;
    if (!this.adb.running) await this.adb.start();
    for (const d of this.devices.splice(0)) {
      await this.adb.disconnect(d.port).catch(() => undefined);
      await d.stop();
    }
    this.cloud.resetFaults();
    this.cloud.clearFailedDevices();
    this.cloud.clearRequests();
  }

  async stop(): Promise<void> {
    await this.reset();
    await this.adb.stop();
    await this.cloud.stop();
  }

  /** Plugs a simulated device with this serial and waits until adb shows it in its expected state. */
  async plug(serial: string, options: PlugOptions = {}): Promise<SimDevice> {
    const { profile = this.profile, props, ...rest } = options;
    const recorded = withSerial(loadProfile(profile), serial);
    const played = props ? { ...withProps(recorded, props), banner: recorded.banner } : recorded;
    const device = new SimDevice({ ...rest, profile: played });
    this.devices.push(device);
    await this.adb.connect(await device.start(), { wait: false });
    const state = rest.mode === 'unauthorized' ? 'unauthorized' : rest.mode === 'offline' ? 'offline' : 'device';
    await this.adb.waitForState(device.serial, state, 20_000);
    return device;
  }

  /** A simulated phone listening on TCP that adb does not know yet: one the agent connects (networkDevices). */
  async networkPhone(serial: string, options: Partial<Omit<SimDeviceOptions, 'profile'>> = {}): Promise<SimDevice> {
    const device = new SimDevice({ ...options, profile: withSerial(loadProfile(this.profile), serial) });
    this.devices.push(device);
    await device.start();
    return device;
  }

  /** Starts `device-agent run` against the bed; the schedule is far away unless `extra` says otherwise. */
  run(extra: Record<string, string> = {}): AgentProcess {
    this.agent = startAgent(['run'], daemonEnv(this.adb.env, this.cloud, extra));
    return this.agent;
  }
}

/** The agent's /metrics, once its status endpoint (DEVICE_AGENT_STATUS_LISTEN=127.0.0.1:0) says where it listens. */
export async function scrapeMetrics(agent: AgentProcess): Promise<string> {
  const listen = String((await agent.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)')).listen);
  return (await fetch(`http://${listen}/metrics`)).text();
}
