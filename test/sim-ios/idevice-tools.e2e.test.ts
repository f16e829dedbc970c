// The simulator proven by clients nobody here wrote: Debian's idevice_id and
// ideviceinfo (libimobiledevice 1.3.0, libusbmuxd 2.0.2) against it, through
// ListDevices, Connect, ReadPairRecord, StartSession with TLS (1.0 for iOS 9)
// and StopSession.
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemTool } from '../support/system-tool.js';
import { SimUsbmuxd, type SimPhone } from './usbmuxd.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], env: Record<string, string>, timeoutMs = 15_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(systemTool(cmd), args, { env: { ...process.env, ...env }, timeout: timeoutMs }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `Key: value` lines of ideviceinfo into a map. */
function keyValues(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z0-9]+): (.*)$/.exec(line);
    if (m) out.set(m[1]!, m[2]!);
  }
  return out;
}

for (const transport of ['unix', 'tcp'] as const) {
  describe(`libimobiledevice tools against the simulator (${transport})`, () => {
    const sim = new SimUsbmuxd({ tcp: transport === 'tcp' });
    let ios16: SimPhone, ios9: SimPhone, ios17: SimPhone, untrusted: SimPhone, stale: SimPhone;

    beforeAll(async () => {
      await sim.start();
      ios16 = sim.plug({ profile: 'iphone-13-ios16' });
      ios9 = sim.plug({ profile: 'iphone-6s-ios9' });
      ios17 = sim.plug({ profile: 'iphone-15-ios17' });
      untrusted = sim.plug({ profile: 'iphone-15-ios17', udid: '00008120-00000000000000UT', state: 'untrusted' });
      stale = sim.plug({ profile: 'iphone-13-ios16', udid: '00008110-00000000000000ST', state: 'stale' });
    });
    afterAll(() => sim.dispose());

    it('idevice_id -l lists every plugged phone, and not an unplugged one', async () => {
      const r = await run('idevice_id', ['-l'], sim.env);
      expect(r.code).toBe(0);
      expect(r.stdout.trim().split('\n').sort()).toEqual([ios16, ios9, ios17, untrusted, stale].map((p) => p.udid).sort());
      const extra = sim.plug({ profile: 'iphone-13-ios16', udid: '00008110-0000000000000TMP' });
      sim.unplug(extra);
      const again = await run('idevice_id', ['-l'], sim.env);
      expect(again.stdout).not.toContain(extra.udid);
    });

    for (const [name, pick] of [
      ['iOS 16', () => ios16],
      ['iOS 9 (TLS 1.0)', () => ios9],
      ['iOS 17', () => ios17],
    ] as const) {
      it(`ideviceinfo reads a paired ${name} phone through a TLS session`, async () => {
        const phone = pick();
        const before = phone.sessions;
        const r = await run('ideviceinfo', ['-u', phone.udid], sim.env);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        const kv = keyValues(r.stdout);
        const root = phone.profile.root;
        for (const k of ['UniqueDeviceID', 'ProductType', 'ProductVersion', 'DeviceName', 'SerialNumber', 'CPUArchitecture']) {
          expect(kv.get(k), k).toBe(String(root[k]));
        }
        // SerialNumber is not public: its presence proves the session was used.
        expect(phone.sessions).toBe(before + 1);
        expect(phone.log.map((l) => l.request)).toContain('StopSession');
        const tls = phone.tls.at(-1);
        if (name.startsWith('iOS 9')) expect(tls?.protocol).toBe('TLSv1');
        else expect(tls?.protocol).toMatch(/^TLSv1\.[23]$/);
        expect(tls?.clientCert).toBe(true);
      });
    }

    it('ideviceinfo reads the battery and disk_usage domains', async () => {
      const battery = keyValues((await run('ideviceinfo', ['-u', ios17.udid, '-q', 'com.apple.mobile.battery'], sim.env)).stdout);
      expect(battery.get('BatteryCurrentCapacity')).toBe('42');
      expect(battery.get('BatteryIsCharging')).toBe('true');
      const disk = keyValues((await run('ideviceinfo', ['-u', ios9.udid, '-q', 'com.apple.disk_usage'], sim.env)).stdout);
      expect(disk.get('TotalDiskCapacity')).toBe('16000000000');
      expect(disk.get('AmountDataAvailable')).toBe('4051574496');
    });

    it('ideviceinfo reads Developer Mode and PasswordProtected as the agent does; iOS 9 has no amfi domain', async () => {
      const amfi = ['-q', 'com.apple.security.mac.amfi', '-k', 'DeveloperModeStatus'];
      expect((await run('ideviceinfo', ['-u', ios17.udid, ...amfi], sim.env)).stdout.trim()).toBe('true');
      expect((await run('ideviceinfo', ['-u', ios16.udid, '-k', 'PasswordProtected'], sim.env)).stdout.trim()).toBe('false');
      const old = await run('ideviceinfo', ['-u', ios9.udid, ...amfi], sim.env);
      expect(old.stdout.trim()).toBe('');
    });

    it('ideviceinfo -k reads one key', async () => {
      const r = await run('ideviceinfo', ['-u', ios16.udid, '-k', 'ProductVersion'], sim.env);
      expect(r.stdout.trim()).toBe('16.3.1');
    });

    it('ideviceinfo -s (no session) reads public values of an untrusted phone', async () => {
      const r = await run('ideviceinfo', ['-s', '-u', untrusted.udid, '-k', 'ProductType'], sim.env);
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toBe('iPhone15,4');
    });

    it('ideviceinfo fails on an untrusted phone and on a stale pairing, without a session', async () => {
      for (const phone of [untrusted, stale]) {
        const r = await run('ideviceinfo', ['-u', phone.udid], sim.env);
        expect(r.code, phone.state).not.toBe(0);
        expect(r.stderr + r.stdout).toMatch(/ERROR/);
        expect(phone.sessions).toBe(0);
      }
      expect(untrusted.log.map((l) => l.request)).toContain('Pair');
    });

    it('ideviceinfo gives up on a phone that is gone', async () => {
      const r = await run('ideviceinfo', ['-u', '00008110-00000000000000NO'], sim.env);
      expect(r.code).not.toBe(0);
    });
  });
}
