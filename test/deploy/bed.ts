// The test bed of the deploy checks (test/deploy/*.sh), run inside the
// booted system or container next to the installed agent: simulated phones
// connected to the adb server the deployment runs, the cloud double on a
// fixed port, and a small control port the shell scripts ask with fetch:
//   GET  /puts                 every PUT /devices: time, status, nodeId, the Machine's version and
//                              buildNumber, devices (udid, status, message)
//   GET  /ready                200 once every phone is listed by adb as a device
//   POST /connect?serials=A,B  `adb connect` those phones again (after an adb restart)
//   POST /unplug?serials=A     the phone goes away for good
//   POST /disconnect?serials=A adb stops listing the phone, which stays up (USB debugging turned off: the
//                              check keeps its serial on a sysfs port)
//   POST /fail?status=503      the cloud answers every request with that status from now on
//   POST /heal                 the cloud answers normally again
//   POST /offline?serials=A    the phone's adbd stops answering its handshake (adb lists it offline)
//   POST /wedge?serials=A      the phone's adbd is wedged for good: listed as a device, no shell answered,
//                              a new connection's neither (a kick does not help; its port's power does)
//   GET  /bookings             every booking question the cloud got (GET /devices/{udid}/status): udid, time, status
//   GET  /hub                  every switch of a hub port seen: hub, port, power, serial, time
// With --hub-sysfs DIR --hub-ports HUB:PORT=SERIAL,...: a hub for the
// stand-in uhubctl (test/hub/uhubctl), which writes the ports' sysfs
// disable files under DIR; the bed watches them: "1" pulls the phone's
// cable, "0" plugs it back as a phone that booted afresh. The deploy check
// makes the tree and the hub's device node.
// node dist/test/deploy/bed.js --adb-port 5037 --cloud-port 8080 --control-port 8081 --serials A,B,C
//   [--unauthorized C]   those phones wait for "Allow USB debugging" (adb lists them unauthorized)
//   [--fixed-ports C=5602]  those phones listen on that port (adb serial 127.0.0.1:5602), so that the
//                        agent's settings can name them (networkDevices) before the bed runs
//   [--adb-relay-port 5038 --usb-paths C=1-1.3]  a relay in front of the adb server on that port
//                        (test/sim/adb-proxy.ts), for the agent to reach adb through: its long device
//                        list (`adb devices -l`) gives those phones the usb path a phone on that USB
//                        port has (`usb:1-1.3`). The phones reach adb over TCP, and the USB layer
//                        places a phone on a port only by that path, which a phone cannot forge
//                        (docs/design/trust.md); a serial sysfs shows places nothing.
// The control port answers at once; the phones are connected as soon as the
// adb server answers (--adb-wait-seconds, default 60: where the adb server
// comes with the package under test, the bed starts before it).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { AdbProxy } from '../sim/adb-proxy.js';
import { hostRequest, parseDevices } from '../sim/host-client.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { sleep } from '../support/wait.js';

const { values } = parseArgs({
  options: {
    'adb-port': { type: 'string', default: '5037' },
    'cloud-port': { type: 'string', default: '8080' },
    'control-port': { type: 'string', default: '8081' },
    'control-host': { type: 'string', default: '127.0.0.1' },
    serials: { type: 'string', default: 'DEPLOY01,DEPLOY02,DEPLOY03' },
    'adb-wait-seconds': { type: 'string', default: '60' },
    profile: { type: 'string', default: 'pixel-8-pro' },
    unauthorized: { type: 'string', default: '' },
    'hub-sysfs': { type: 'string' },
    'hub-ports': { type: 'string', default: '' },
    'fixed-ports': { type: 'string', default: '' },
    'adb-relay-port': { type: 'string' },
    'usb-paths': { type: 'string', default: '' },
  },
});

const adbPort = Number(values['adb-port']);
const locked = new Set(values.unauthorized.split(',').filter(Boolean));
const cloud = new CloudDouble();
const phones = new Map<string, SimDevice>();
const fixedPorts = new Map(
  values['fixed-ports']
    .split(',')
    .filter(Boolean)
    .map((entry) => {
      const [serial, port] = entry.split('=');
      if (!serial || !/^\d+$/.test(port ?? '')) throw new Error(`--fixed-ports: SERIAL=PORT, got ${entry}`);
      return [serial, Number(port)] as const;
    }),
);

const usbPaths = new Map(
  values['usb-paths']
    .split(',')
    .filter(Boolean)
    .map((entry) => {
      const [serial, path] = entry.split('=');
      if (!serial || !/^\d+-\d+(\.\d+)*$/.test(path ?? '')) throw new Error(`--usb-paths: SERIAL=BUS-PORT[.PORT...], got ${entry}`);
      return [serial, path!] as const;
    }),
);
const relayPort = values['adb-relay-port'];
if (relayPort !== undefined && !/^\d+$/.test(relayPort)) throw new Error(`--adb-relay-port: a port, got ${relayPort}`);
if (usbPaths.size > 0 && relayPort === undefined) throw new Error('--usb-paths needs --adb-relay-port: the relay is what gives the paths');
for (const name of usbPaths.keys()) if (!values.serials.split(',').includes(name)) throw new Error(`--usb-paths: ${name} is not one of --serials`);
const relay = relayPort === undefined ? undefined : new AdbProxy({ targetPort: adbPort });

async function connect(serial: string): Promise<void> {
  const phone = phones.get(serial);
  if (!phone) throw new Error(`no phone ${serial}`);
  // The adb server may still be starting: ask until it answers.
  for (let i = 0; ; i++) {
    try {
      await hostRequest(adbPort, `host:connect:127.0.0.1:${phone.port}`, { timeoutMs: 5_000 });
      return;
    } catch (error) {
      if (i > Number(values['adb-wait-seconds']) * 2) throw error;
      await sleep(500);
    }
  }
}

async function ready(): Promise<boolean> {
  try {
    const listed = parseDevices(await hostRequest(adbPort, 'host:devices', { timeoutMs: 3_000 }));
    return [...phones].every(([name, p]) => listed.some((d) => d.serial === p.serial && d.state === (locked.has(name) ? 'unauthorized' : 'device')));
  } catch {
    return false;
  }
}

const hubSwitches: Array<{ hub: string; port: number; power: 'off' | 'on'; serial: string; at: number }> = [];

/** Watches each mapped port's disable file and pulls or plugs the phone on it. */
function watchHub(sysfs: string, ports: string): void {
  const slots = ports
    .split(',')
    .filter(Boolean)
    .map((entry) => {
      const m = /^([\d.-]+):(\d+)=(.+)$/.exec(entry);
      if (!m) throw new Error(`--hub-ports: HUB:PORT=SERIAL, got ${entry}`);
      return { hub: m[1]!, port: Number(m[2]), serial: m[3]!, off: false };
    });
  let busy = false;
  setInterval(() => {
    if (busy) return;
    busy = true;
    void (async () => {
      for (const slot of slots) {
        let off: boolean;
        try {
          off = readFileSync(join(sysfs, `${slot.hub}:1.0`, `${slot.hub}-port${slot.port}`, 'disable'), 'utf8').trim() === '1';
        } catch {
          continue;
        }
        if (off === slot.off) continue;
        slot.off = off;
        hubSwitches.push({ hub: slot.hub, port: slot.port, power: off ? 'off' : 'on', serial: slot.serial, at: Date.now() });
        const phone = phones.get(slot.serial);
        if (!phone) continue;
        if (off) await phone.unplug();
        else {
          phone.wedge(false);
          if (phone.currentMode === 'offline') phone.setMode('ready');
          await phone.replug();
          await connect(slot.serial).catch(() => undefined);
        }
      }
    })().finally(() => (busy = false));
  }, 250);
}

async function main(): Promise<void> {
  await cloud.start(Number(values['cloud-port']));
  // Before the phones: a phone's port drawn after it cannot take the relay's.
  await relay?.start(Number(relayPort));
  for (const serial of values.serials.split(',').filter(Boolean)) {
    const phone = new SimDevice({ profile: withSerial(loadProfile(values.profile), serial), mode: locked.has(serial) ? 'unauthorized' : 'ready' });
    await phone.start(fixedPorts.get(serial) ?? 0);
    phones.set(serial, phone);
    // By its adb serial (127.0.0.1:PORT), which a replug keeps: the phone listens on its port again.
    const path = usbPaths.get(serial);
    if (path !== undefined) relay!.usbPaths.set(phone.serial, path);
  }
  const control = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://bed');
    const serials = (url.searchParams.get('serials') ?? '').split(',').filter(Boolean);
    const answer = async (): Promise<[number, unknown]> => {
      if (url.pathname === '/puts') {
        return [
          200,
          cloud.putRequests().map((r) => {
            const body = r.body as
              | { nodeId?: string; machine?: { version?: string; buildNumber?: string }; devices?: Array<{ udid: string; status: string; message?: string }> }
              | undefined;
            return {
              receivedAt: r.receivedAt,
              status: r.answer?.status,
              nodeId: body?.nodeId,
              version: body?.machine?.version,
              buildNumber: body?.machine?.buildNumber,
              devices: (body?.devices ?? []).map((d) => ({ udid: d.udid, status: d.status, message: d.message })),
            };
          }),
        ];
      }
      if (url.pathname === '/ready') return (await ready()) ? [200, 'ready'] : [503, 'not yet'];
      if (url.pathname === '/connect' && req.method === 'POST') {
        for (const s of serials) await connect(s);
        return [200, 'connected'];
      }
      if (url.pathname === '/unplug' && req.method === 'POST') {
        for (const s of serials) {
          const phone = phones.get(s);
          phones.delete(s);
          await phone?.stop();
        }
        return [200, 'unplugged'];
      }
      if (url.pathname === '/disconnect' && req.method === 'POST') {
        for (const s of serials) {
          const phone = phones.get(s);
          if (phone) await hostRequest(adbPort, `host:disconnect:127.0.0.1:${phone.port}`, { timeoutMs: 5_000 });
        }
        return [200, 'disconnected'];
      }
      if (url.pathname === '/offline' && req.method === 'POST') {
        for (const s of serials) phones.get(s)?.setMode('offline');
        return [200, 'offline'];
      }
      if (url.pathname === '/wedge' && req.method === 'POST') {
        for (const s of serials) phones.get(s)?.wedge(true);
        return [200, 'wedged'];
      }
      if (url.pathname === '/bookings') {
        return [200, cloud.statusRequests().map((r) => ({ udid: decodeURIComponent(r.path.split('/')[2] ?? ''), at: r.receivedAt, status: r.answer?.status }))];
      }
      if (url.pathname === '/hub') return [200, hubSwitches];
      if (url.pathname === '/fail' && req.method === 'POST') {
        cloud.failNext({ status: Number(url.searchParams.get('status') ?? '503'), times: Infinity });
        return [200, 'failing'];
      }
      if (url.pathname === '/heal' && req.method === 'POST') {
        cloud.resetFaults();
        return [200, 'healed'];
      }
      return [404, 'no such thing'];
    };
    answer().then(
      ([status, body]) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => control.listen(Number(values['control-port']), values['control-host'], resolve));
  if (values['hub-sysfs']) watchHub(values['hub-sysfs'], values['hub-ports']);
  await Promise.all([...phones.keys()].map(connect));
  process.stdout.write(`bed ready: cloud ${cloud.url}, ${phones.size} phones\n`);
}

const stop = async (): Promise<void> => {
  for (const p of phones.values()) await p.stop().catch(() => undefined);
  await relay?.stop().catch(() => undefined);
  await cloud.stop().catch(() => undefined);
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
main().catch((error: unknown) => {
  process.stderr.write(`bed failed: ${String(error)}\n`);
  process.exit(1);
});
