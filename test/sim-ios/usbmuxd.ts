// A simulated usbmuxd (plist protocol, version 1) on a unix socket or a TCP
// port: ListDevices, Listen (Attached/Detached events), Connect to a phone's
// lockdown port, ReadPairRecord, ReadBUID. Phones are plugged and unplugged
// at run time; restart() drops every client as a restarted usbmuxd would.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as plist from 'plist';
import { pairCerts } from './certs.js';
import { RELAY_PORT, serveImageMounter, serveLockdown, serveRelay, type LockdownPhone, type PairState } from './lockdownd.js';
import { profile as loadProfile, type PhoneProfile } from './phones.js';

export const LOCKDOWN_PORT = 62078;
const MSG_PLIST = 8;

const AMFI = 'com.apple.security.mac.amfi';

export interface PhoneSpec {
  profile: string | PhoneProfile;
  state?: PairState;
  /** Overrides the profile's UniqueDeviceID. */
  udid?: string;
  /**
   * usbmuxd's LocationID for it: on Linux (bus << 16) | device address (usbmuxd's src/usb.c,
   * usb_get_location), which a sysfs tree maps to a port; a macOS-like location by default.
   */
  location?: number;
  /** Developer Mode (com.apple.security.mac.amfi DeveloperModeStatus); the profile's by default (on from iOS 16, absent before). */
  developerMode?: boolean;
  /**
   * The passcode as lockdown's root PasswordProtected shows it: `locked` (a passcode, locked now: true),
   * `unlocked` (a passcode, unlocked now: false) or `none` (false, as unlocked: lockdown cannot tell them apart).
   */
  passcode?: 'none' | 'unlocked' | 'locked';
  /** The amfi domain refused in a session (an error answer) or the connection closed on its request (LockdownPhone.amfiFault). */
  amfiFault?: 'refused' | 'close';
  /** The developer disk image (LockdownPhone.developerImage); by default mounted from iOS 17, not offered before. */
  developerImage?: LockdownPhone['developerImage'] | 'none';
  /** The diagnostics relay's answers and faults (LockdownPhone.relay); none: it refuses. */
  relay?: LockdownPhone['relay'];
}

export interface SimPhone extends LockdownPhone {
  deviceId: number;
  udid: string;
  location?: number;
}

type Dict = Record<string, unknown>;

export function encodeMux(body: Dict, tag: number): Buffer {
  const payload = Buffer.from(plist.build(body as never), 'utf8');
  const head = Buffer.alloc(16);
  head.writeUInt32LE(16 + payload.length, 0);
  head.writeUInt32LE(1, 4);
  head.writeUInt32LE(MSG_PLIST, 8);
  head.writeUInt32LE(tag, 12);
  return Buffer.concat([head, payload]);
}

export class SimUsbmuxd {
  readonly phones = new Map<number, SimPhone>();
  readonly buid = randomUUID().toUpperCase();
  /** Requests by MessageType, for tests. */
  readonly requests: string[] = [];
  /** When set, each Listen connection is cut this long after it is answered, as a crash-looping usbmuxd does. */
  cutListenAfterMs: number | undefined;
  /** When set, ListDevices answers this late with the list as it stood when asked (a busy usbmuxd; Listen's events go on meanwhile). */
  listLateMs: number | undefined;
  private server?: net.Server;
  private readonly clients = new Set<net.Socket>();
  private readonly listeners = new Set<net.Socket>();
  private nextId = 1;
  /** Phones plugged but not active yet after a restart: neither listed nor announced (see restart). */
  private readonly activating = new Set<number>();
  private dir?: string;
  private tcpPort = 0;
  /** UNIX:/path (or 127.0.0.1:PORT with tcp) as USBMUXD_SOCKET_ADDRESS wants it. */
  address = '';
  socketPath = '';

  constructor(private readonly opts: { tcp?: boolean } = {}) {}

  get env(): Record<string, string> {
    return { USBMUXD_SOCKET_ADDRESS: this.address };
  }

  async start(): Promise<void> {
    const server = net.createServer((s) => this.accept(s));
    this.server = server;
    if (this.opts.tcp) {
      await new Promise<void>((res, rej) => {
        server.once('error', rej);
        server.listen(this.tcpPort, '127.0.0.1', () => res());
      });
      this.tcpPort = (server.address() as net.AddressInfo).port;
      this.address = `127.0.0.1:${this.tcpPort}`;
    } else {
      this.dir ??= mkdtempSync(join(tmpdir(), 'sim-usbmuxd-'));
      this.socketPath = join(this.dir, 'usbmuxd');
      rmSync(this.socketPath, { force: true });
      await new Promise<void>((res, rej) => {
        server.once('error', rej);
        server.listen(this.socketPath, () => res());
      });
      this.address = `UNIX:${this.socketPath}`;
    }
  }

  /** Closes the socket and drops every client; phones stay plugged. */
  async stop(): Promise<void> {
    for (const c of this.clients) c.destroy();
    this.clients.clear();
    this.listeners.clear();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((res) => server.close(() => res()));
  }

  /**
   * usbmuxd restarted: every connection ends, the socket comes back. With
   * `activeAfterMs`, the phones are listed (and announced to listeners) only
   * that long after the socket is back, as a real usbmuxd's are: its
   * ListDevices answers only devices done with their version exchange and
   * preflight (device_get_list in usbmuxd's src/device.c: MUXDEV_ACTIVE and
   * visible), which a just-started usbmuxd has not finished.
   */
  async restart(downMs = 0, activeAfterMs = 0): Promise<void> {
    await this.stop();
    if (downMs) await new Promise((r) => setTimeout(r, downMs));
    // A new usbmuxd process numbers its devices from 1 again (DeviceID), in the order it finds them.
    const phones = [...this.phones.values()];
    this.phones.clear();
    this.nextId = 1;
    for (const phone of phones) {
      phone.deviceId = this.nextId++;
      this.phones.set(phone.deviceId, phone);
    }
    if (activeAfterMs > 0) {
      for (const id of this.phones.keys()) this.activating.add(id);
      setTimeout(() => {
        for (const id of [...this.activating]) {
          this.activating.delete(id);
          const phone = this.phones.get(id);
          if (phone) for (const l of this.listeners) l.write(encodeMux(attached(phone), 0));
        }
      }, activeAfterMs);
    }
    await this.start();
  }

  private active(): SimPhone[] {
    return [...this.phones.values()].filter((p) => !this.activating.has(p.deviceId));
  }

  async dispose(): Promise<void> {
    await this.stop();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  plug(spec: PhoneSpec): SimPhone {
    const prof = typeof spec.profile === 'string' ? loadProfile(spec.profile) : structuredClone(spec.profile);
    if (spec.udid) prof.root.UniqueDeviceID = spec.udid;
    if (spec.developerMode !== undefined) prof.domains[AMFI] = { ...prof.domains[AMFI], DeveloperModeStatus: spec.developerMode };
    if (spec.passcode !== undefined) prof.root.PasswordProtected = spec.passcode === 'locked';
    const phone: SimPhone = {
      deviceId: this.nextId++,
      udid: String(prof.root.UniqueDeviceID),
      profile: prof,
      state: spec.state ?? 'paired',
      hostId: randomUUID().toUpperCase(),
      certs: pairCerts(),
      log: [],
      sessions: 0,
      tls: [],
      ...(spec.amfiFault && { amfiFault: spec.amfiFault }),
      ...imageOf(spec, prof),
      services: new Map(),
      ...(spec.location !== undefined && { location: spec.location }),
      ...(spec.relay && { relay: spec.relay }),
    };
    this.phones.set(phone.deviceId, phone);
    for (const l of this.listeners) l.write(encodeMux(attached(phone), 0));
    return phone;
  }

  /**
   * The phone reboots: usbmuxd sees it detach, and `downMs` later attach again
   * under a new DeviceID, its pairing kept and its developer disk image
   * unmounted (a reboot unmounts it) unless `image` says otherwise. Resolves
   * once it is back.
   */
  async reboot(phone: SimPhone, opts: { downMs?: number; image?: SimPhone['developerImage'] } = {}): Promise<void> {
    this.unplug(phone);
    await new Promise((r) => setTimeout(r, opts.downMs ?? 300));
    phone.deviceId = this.nextId++;
    phone.services.clear();
    if (phone.developerImage !== undefined) phone.developerImage = opts.image ?? 'not-mounted';
    this.phones.set(phone.deviceId, phone);
    for (const l of this.listeners) l.write(encodeMux(attached(phone), 0));
  }

  unplug(phone: SimPhone): void {
    if (!this.phones.delete(phone.deviceId)) return;
    for (const l of this.listeners) l.write(encodeMux({ MessageType: 'Detached', DeviceID: phone.deviceId }, 0));
  }

  /** The pair record usbmuxd stores for a phone (paired, stale and hang phones have one). */
  pairRecord(phone: SimPhone): Dict | undefined {
    if (phone.state === 'unpaired' || phone.state === 'untrusted') return undefined;
    const c = phone.certs;
    return {
      DeviceCertificate: Buffer.from(c.deviceCert),
      HostCertificate: Buffer.from(c.hostCert),
      HostPrivateKey: Buffer.from(c.hostKey),
      RootCertificate: Buffer.from(c.rootCert),
      RootPrivateKey: Buffer.from(c.rootKey),
      HostID: phone.state === 'stale' ? randomUUID().toUpperCase() : phone.hostId,
      SystemBUID: this.buid,
      WiFiMACAddress: String(phone.profile.root.WiFiAddress ?? '00:00:00:00:00:00'),
    };
  }

  private accept(sock: net.Socket): void {
    this.clients.add(sock);
    sock.on('close', () => {
      this.clients.delete(sock);
      this.listeners.delete(sock);
    });
    sock.on('error', () => {});
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 16) {
        const len = buf.readUInt32LE(0);
        if (len < 16 || len > 1 << 20) return sock.destroy();
        if (buf.length < len) return;
        const tag = buf.readUInt32LE(12);
        const body = buf.subarray(16, len);
        buf = buf.subarray(len);
        let req: Dict;
        try {
          req = plist.parse(body.toString('utf8')) as Dict;
        } catch {
          return sock.destroy();
        }
        if (this.handle(sock, req, tag, onData) === 'tunnel') {
          // Whatever followed the Connect request belongs to lockdown.
          if (buf.length) sock.unshift(buf);
          return;
        }
      }
    };
    sock.on('data', onData);
  }

  private handle(sock: net.Socket, req: Dict, tag: number, onData: (b: Buffer) => void): 'tunnel' | void {
    const type = String(req.MessageType ?? '');
    this.requests.push(type);
    const result = (n: number) => sock.write(encodeMux({ MessageType: 'Result', Number: n }, tag));
    switch (type) {
      case 'ListDevices': {
        const answer = encodeMux({ DeviceList: this.active().map(attached) }, tag);
        if (this.listLateMs === undefined) sock.write(answer);
        else setTimeout(() => sock.writable && sock.write(answer), this.listLateMs);
        return;
      }
      case 'Listen':
        result(0);
        this.listeners.add(sock);
        for (const p of this.active()) sock.write(encodeMux(attached(p), 0));
        if (this.cutListenAfterMs !== undefined) setTimeout(() => sock.destroy(), this.cutListenAfterMs);
        return;
      case 'ReadBUID':
        sock.write(encodeMux({ BUID: this.buid }, tag));
        return;
      case 'ReadPairRecord': {
        const phone = [...this.phones.values()].find((p) => p.udid === req.PairRecordID);
        const record = phone && this.pairRecord(phone);
        if (!record) return void result(2);
        sock.write(encodeMux({ PairRecordData: Buffer.from(plist.build(record as never), 'utf8') }, tag));
        return;
      }
      case 'Connect': {
        const phone = this.phones.get(Number(req.DeviceID));
        // BadDevice, as usbmuxd answers for a device it does not have active (yet).
        if (!phone || this.activating.has(phone.deviceId)) return void result(2);
        // PortNumber travels in network byte order inside a little-endian field.
        const raw = Number(req.PortNumber) & 0xffff;
        const port = ((raw & 0xff) << 8) | (raw >> 8);
        const service = phone.services.get(port);
        if (port !== LOCKDOWN_PORT && port !== RELAY_PORT && service === undefined) return void result(3);
        result(0);
        sock.removeListener('data', onData);
        if (port === RELAY_PORT) serveRelay(sock, phone);
        else if (service !== undefined) {
          phone.services.delete(port);
          serveImageMounter(sock, phone);
        } else serveLockdown(sock, phone);
        return 'tunnel';
      }
      default:
        result(1);
    }
  }
}

/** The image a plugged phone has: the spec's, else mounted from iOS 17 and no service before (the profiles predate the check). */
function imageOf(spec: PhoneSpec, prof: PhoneProfile): Pick<LockdownPhone, 'developerImage'> {
  if (spec.developerImage === 'none') return {};
  if (spec.developerImage !== undefined) return { developerImage: spec.developerImage };
  return Number.parseInt(String(prof.root.ProductVersion), 10) >= 17 ? { developerImage: 'mounted' } : {};
}

function attached(p: SimPhone): Dict {
  return {
    MessageType: 'Attached',
    DeviceID: p.deviceId,
    Properties: {
      ConnectionSpeed: 480000000,
      ConnectionType: 'USB',
      DeviceID: p.deviceId,
      LocationID: p.location ?? 0x14100000 + p.deviceId,
      ProductID: 0x12a8,
      SerialNumber: p.udid,
      USBSerialNumber: p.udid.replace(/-/g, ''),
    },
  };
}
