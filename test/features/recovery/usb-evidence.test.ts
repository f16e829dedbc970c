import { describe, expect, it } from 'vitest';
import { RECOVERY_USB } from '../../../src/features/recovery/carry.js';
import type { PortCycleSeen, UsbEvidence, UsbSeen } from '../../../src/devices/usb-evidence.js';
import { recoveryBed } from './recovery-bed.js';

// Recovery with the USB layer's word handed in, on virtual time: the
// evidence is what the layer would answer (its own answers on a replayed
// kernel log and a sysfs tree: test/features/usb/presence.test.ts).

const SERIAL = 'R58W0001';
const UDID = 'USBW-0001';

/** The USB layer's answers, set by the test as the kernel's word changes. */
function evidence(): UsbEvidence & { phone: UsbSeen | undefined; cycle: PortCycleSeen | undefined; asked: string[][] } {
  const e = {
    phone: undefined as UsbSeen | undefined,
    cycle: undefined as PortCycleSeen | undefined,
    asked: [] as string[][],
    placeOf: () => undefined,
    seen: (serials: readonly string[]) => (e.asked.push([...serials]), e.phone),
    cycled: () => e.cycle,
  };
  return e;
}

const gone: UsbSeen = { enumerated: false, port: '1-1.4.3', hub: '1-1.4', last: 'disconnected', at: 0 };

describe('recovery on the USB layer evidence', () => {
  it('says a hub whose phones are off USB together once per episode, one line and one count, and again for the next episode', async () => {
    // Two phones of hub 1-1.4, each with the kernel's word on it by adb serial.
    const phones = new Map<string, UsbSeen>();
    const usb: UsbEvidence = { placeOf: () => undefined, seen: (serials) => phones.get(serials[0]!), cycled: () => undefined };
    const bed = recoveryBed({ env: { DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '2' }, usb });
    for (const [n, serial] of ['R58H0001', 'R58H0002'].entries()) {
      bed.list(serial, 'device');
      bed.answered(serial, `HUB-000${n + 1}`);
    }
    bed.recovery.start();
    const lose = () => {
      for (const [n, serial] of ['R58H0001', 'R58H0002'].entries()) phones.set(serial, { ...gone, port: `1-1.4.${n + 1}` });
    };
    const hubLines = () => bed.lines(/lost|off USB together/).filter((l) => l.hub === '1-1.4');
    lose();
    await bed.advance(30 * 60_000);
    expect(hubLines()).toHaveLength(1);
    expect(bed.stats.counter(RECOVERY_USB).get('hub_lost')).toBe(1);
    // The hub's line is its phones': no phone's own line says it needs a person.
    expect(bed.lines(/needs a person|a person is needed/)).toEqual([]);
    // Back on their ports: the episode ends. Lost together again: a new one, said again.
    for (const [n, serial] of ['R58H0001', 'R58H0002'].entries()) phones.set(serial, { enumerated: true, port: `1-1.4.${n + 1}` });
    await bed.advance(60_000);
    lose();
    await bed.advance(30 * 60_000);
    expect(hubLines()).toHaveLength(2);
    expect(bed.stats.counter(RECOVERY_USB).get('hub_lost')).toBe(2);
    expect(bed.doneSince(0)).toEqual([]);
    await bed.recovery.stop();
  });

  it('does not kick a wedged phone the kernel has on no port: a person is asked for once, naming the port and why adb cannot help', async () => {
    const usb = evidence();
    const bed = recoveryBed({ env: { DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '2' }, usb });
    bed.list(SERIAL, 'device');
    bed.answered(SERIAL, UDID);
    bed.recovery.start();
    usb.phone = gone;
    bed.failed(SERIAL, 4);
    await bed.advance(30 * 60_000);
    expect(bed.doneSince(0)).toEqual([]);
    expect(bed.actions('kick', 'ok')).toBe(0);
    // Its USB serials: adb's serial and its udid, with and without the dash.
    expect(usb.asked.at(-1)).toEqual([SERIAL, UDID, 'USBW0001']);
    expect(bed.notes(SERIAL)?.attention).toBe(
      "needs a person: not enumerated on USB (the kernel's last word on port 1-1.4.3 is disconnected); an adb kick cannot reach a phone the kernel does not see; power cycling is off (recovery.powerCycle); replug its cable or reboot it",
    );
    expect(bed.lines(/not enumerated on USB/)).toHaveLength(1);
    await bed.recovery.stop();
  });

  it('kicks it as before once the kernel has it on a port again', async () => {
    const usb = evidence();
    const bed = recoveryBed({ env: { DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '2' }, usb });
    bed.list(SERIAL, 'device');
    bed.answered(SERIAL, UDID);
    bed.recovery.start();
    usb.phone = { enumerated: true, port: '1-1.4.3' };
    bed.failed(SERIAL, 2);
    await bed.advance(5_000);
    expect(bed.doneSince(0)).toEqual([`reconnect ${SERIAL}`]);
    await bed.recovery.stop();
  });

  const cycling = (usb: UsbEvidence) =>
    recoveryBed({
      env: {
        DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '2',
        DEVICE_AGENT_RECOVERY_POWER_CYCLE: 'true',
        DEVICE_AGENT_HUB_PORTS: `${UDID}=1-1.4:3`,
        DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '2',
      },
      usb,
    });

  it('power-cycles the port of a lone phone off USB, and says once that the hub did not cycle it when the kernel log shows the port never dropped', async () => {
    const usb = evidence();
    const bed = cycling(usb);
    bed.list(SERIAL, 'device');
    // adb's long listing says where it is on the USB tree: the trust rule's condition for a cycle.
    bed.registry.setUsb('android', new Map([[SERIAL, { usb: '1-1.4.3' }]]));
    bed.answered(SERIAL, UDID);
    bed.recovery.start();
    usb.phone = gone;
    usb.cycle = { dropped: false, back: false };
    bed.failed(SERIAL, 2);
    await bed.advance(60_000);
    expect(bed.doneSince(0)).toEqual(['cycle 1-1.4:3']);
    const unconfirmed = bed.lines(/the hub did not cycle it/);
    expect(unconfirmed.map((l) => l.msg)).toEqual([
      "hub 1-1.4 port 3 was power-cycled, but the kernel log shows USB port 1-1.4.3 did not drop within 20 s: the hub did not cycle it (check that hubPorts names this phone's hub and port, and that the hub switches power per port)",
    ]);
    expect(bed.stats.counter(RECOVERY_USB).get('cycle_unconfirmed')).toBe(1);
    await bed.recovery.stop();
  });

  it('says nothing more of a cycle the kernel log shows drop and come back', async () => {
    const usb = evidence();
    const bed = cycling(usb);
    bed.list(SERIAL, 'device');
    // adb's long listing says where it is on the USB tree: the trust rule's condition for a cycle.
    bed.registry.setUsb('android', new Map([[SERIAL, { usb: '1-1.4.3' }]]));
    bed.answered(SERIAL, UDID);
    bed.recovery.start();
    usb.phone = gone;
    usb.cycle = { dropped: true, back: true };
    bed.failed(SERIAL, 2);
    await bed.advance(60_000);
    expect(bed.doneSince(0)).toEqual(['cycle 1-1.4:3']);
    expect(bed.lines(/the hub did not cycle it/)).toEqual([]);
    expect(bed.stats.counter(RECOVERY_USB).get('cycle_unconfirmed')).toBe(0);
    await bed.recovery.stop();
  });
});
