// A private adb server plus N simulated devices connected to it: the whole
// fixture an end-to-end test or the benchmark needs.
import { AdbServer, type DeviceState } from './adb-server.js';
import { loadProfile, withSerial, type Profile } from './profile.js';
import { SimDevice, type SimDeviceOptions, type SimMode } from './sim-device.js';

export interface FarmDeviceSpec extends Partial<Omit<SimDeviceOptions, 'profile'>> {
  /** A profile or the name of one under test/fixtures/devices. */
  profile?: Profile | string;
  /** ro.serialno / ro.boot.serialno of this device; by default `${serialPrefix}${index}`. */
  serial?: string;
}

export interface SimFarmOptions {
  /** Devices when `devices` is not given: `count` copies of `profile`. */
  count?: number;
  profile?: Profile | string;
  /** Per-device settings; overrides count. */
  devices?: FarmDeviceSpec[];
  serialPrefix?: string;
  adbPath?: string;
  /** adb connect requests in flight at once. */
  connectConcurrency?: number;
  /** How long start() waits for every device to reach its expected state. */
  readyTimeoutMs?: number;
}

const EXPECTED_STATE: Record<SimMode, DeviceState> = {
  ready: 'device',
  unauthorized: 'unauthorized',
  offline: 'offline',
};

export class SimFarm {
  readonly server: AdbServer;
  readonly devices: SimDevice[] = [];
  /** ro.serialno of each device, in the same order as `devices`. */
  readonly serialNumbers: string[] = [];

  constructor(readonly options: SimFarmOptions = {}) {
    this.server = new AdbServer({ adbPath: options.adbPath });
  }

  /** The adb server's port, for adbkit's createClient({ port }). */
  get port(): number {
    return this.server.port;
  }

  get env(): Record<string, string> {
    return this.server.env;
  }

  /** adb serials ("127.0.0.1:PORT"), in the same order as `devices`. */
  get serials(): string[] {
    return this.devices.map((device) => device.serial);
  }

  async start(): Promise<void> {
    try {
      await this.server.start();
      const specs = this.specs();
      const profiles = new Map<string, Profile>();
      const resolveProfile = (profile: Profile | string | undefined): Profile => {
        if (typeof profile === 'object') return profile;
        const name = profile ?? 'pixel-8-pro';
        let loaded = profiles.get(name);
        if (!loaded) profiles.set(name, (loaded = loadProfile(name)));
        return loaded;
      };
      const prefix = this.options.serialPrefix ?? 'SIM';
      specs.forEach((spec, index) => {
        const serial = spec.serial ?? `${prefix}${String(index + 1).padStart(4, '0')}`;
        const { profile, serial: _serial, ...rest } = spec;
        this.serialNumbers.push(serial);
        this.devices.push(new SimDevice({ ...rest, profile: withSerial(resolveProfile(profile), serial) }));
      });
      await Promise.all(this.devices.map((device) => device.start()));
      await this.connectAll();
      const expected = new Map(this.devices.map((device) => [device.serial, EXPECTED_STATE[device.currentMode]]));
      await this.server.waitForStates(expected, this.options.readyTimeoutMs ?? 30_000);
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await Promise.all(this.devices.map((device) => device.stop()));
  }

  device(serial: string): SimDevice | undefined {
    return this.devices.find((device) => device.serial === serial);
  }

  /** Shell sessions per adb serial since start or the last resetCounts(). */
  sessionCounts(): Map<string, number> {
    return new Map(this.devices.map((device) => [device.serial, device.shellSessions]));
  }

  totalSessions(): number {
    return this.devices.reduce((sum, device) => sum + device.shellSessions, 0);
  }

  resetCounts(): void {
    for (const device of this.devices) device.resetCounts();
  }

  private specs(): FarmDeviceSpec[] {
    if (this.options.devices) return this.options.devices;
    const count = this.options.count ?? 1;
    return Array.from({ length: count }, () => ({ profile: this.options.profile }));
  }

  private async connectAll(): Promise<void> {
    const queue = [...this.devices];
    const worker = async (): Promise<void> => {
      for (let device = queue.shift(); device; device = queue.shift()) {
        // adb 29 holds the answer for an offline device 10 s: don't wait for it.
        await this.server.connect(device.port, { wait: device.currentMode !== 'offline' });
      }
    };
    const workers = Math.min(this.options.connectConcurrency ?? 16, queue.length);
    await Promise.all(Array.from({ length: workers }, worker));
  }
}
