// A private adb server plus N simulated devices connected to it: the whole
// fixture an end-to-end test or the benchmark needs.
import { AdbProxy } from './adb-proxy.js';
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
  /**
   * Put an AdbProxy in front of the server (`farm.proxy`): `port` and `env`
   * then lead through it, so its trackers can be killed on a schedule.
   */
  proxy?: boolean | { trackerLifetimeMs?: number };
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
  /** The relay in front of the server, when options.proxy asked for one. */
  proxy: AdbProxy | undefined;

  constructor(readonly options: SimFarmOptions = {}) {
    this.server = new AdbServer({ adbPath: options.adbPath });
  }

  /** The port the agent uses (the proxy's when there is one), for adbkit's createClient({ port }). */
  get port(): number {
    return this.proxy?.port ?? this.server.port;
  }

  get env(): Record<string, string> {
    return this.proxy?.env ?? this.server.env;
  }

  /** adb serials ("127.0.0.1:PORT"), in the same order as `devices`. */
  get serials(): string[] {
    return this.devices.map((device) => device.serial);
  }

  async start(): Promise<void> {
    try {
      await this.server.start();
      if (this.options.proxy) {
        const settings = typeof this.options.proxy === 'object' ? this.options.proxy : {};
        this.proxy = new AdbProxy({ targetPort: this.server.port, ...settings });
        await this.proxy.start();
      }
      for (const spec of this.specs()) this.create(spec);
      await Promise.all(this.devices.map((device) => device.start()));
      await this.settle();
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /**
   * Connects every device and waits for adb to list them. The adb server
   * itself can die of SIGSEGV under many `adb connect`s at once (AdbServer.crash):
   * then it is started again on its port and the devices connected again,
   * up to twice, said on stderr; a test that needs the farm then gets one,
   * and anything else fails the set-up as before.
   */
  private async settle(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        this.server.crash = undefined;
        await this.connectAll(this.devices);
        await this.waitForExpectedStates(this.devices);
        return;
      } catch (error) {
        const crash = await this.server.crashWithin(1_000);
        if (crash === undefined || attempt > 2) throw error;
        process.stderr.write(`SimFarm: ${crash} while connecting ${this.devices.length} devices; starting it again (attempt ${attempt + 1})\n`);
        await this.server.restart({ reconnect: false });
      }
    }
  }

  /** Plug one more device into the running farm; resolves once adb lists it in its expected state. */
  async add(spec: FarmDeviceSpec = {}): Promise<SimDevice> {
    const device = this.create(spec);
    await device.start();
    await this.connectAll([device]);
    await this.waitForExpectedStates([device]);
    return device;
  }

  /**
   * Unplug a device for good. adb would list it offline for a minute while
   * retrying; the farm also disconnects it, so it is gone at once.
   */
  async remove(device: SimDevice): Promise<void> {
    const index = this.devices.indexOf(device);
    if (index < 0) return;
    this.devices.splice(index, 1);
    this.serialNumbers.splice(index, 1);
    await device.unplug();
    await this.server.disconnect(device.port).catch(() => undefined);
    await this.server.waitForState(device.serial, 'absent');
    await device.stop();
  }

  async stop(): Promise<void> {
    await this.proxy?.stop();
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

  private readonly profiles = new Map<string, Profile>();
  private created = 0;

  private create(spec: FarmDeviceSpec): SimDevice {
    const { profile, serial: given, ...rest } = spec;
    this.created++;
    const serial = given ?? `${this.options.serialPrefix ?? 'SIM'}${String(this.created).padStart(4, '0')}`;
    const device = new SimDevice({ ...rest, profile: withSerial(this.resolveProfile(profile), serial) });
    this.serialNumbers.push(serial);
    this.devices.push(device);
    return device;
  }

  private resolveProfile(profile: Profile | string | undefined): Profile {
    if (typeof profile === 'object') return profile;
    const name = profile ?? this.options.profile ?? 'pixel-8-pro';
    if (typeof name === 'object') return name;
    let loaded = this.profiles.get(name);
    if (!loaded) this.profiles.set(name, (loaded = loadProfile(name)));
    return loaded;
  }

  private async waitForExpectedStates(devices: SimDevice[]): Promise<void> {
    const expected = new Map(devices.map((device) => [device.serial, EXPECTED_STATE[device.currentMode]]));
    await this.server.waitForStates(expected, this.options.readyTimeoutMs ?? 30_000);
  }

  private specs(): FarmDeviceSpec[] {
    if (this.options.devices) return this.options.devices;
    const count = this.options.count ?? 1;
    return Array.from({ length: count }, () => ({}));
  }

  private async connectAll(devices: SimDevice[]): Promise<void> {
    const queue = [...devices];
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
