import { describe, expect, it } from 'vitest';
import { attribute } from '../../../src/features/usb/attribution.js';
import { classifyUsbLine } from '../../../src/features/usb/classify.js';
import { readFileSync } from 'node:fs';
import { parseKernelLogLine } from '../../../src/features/usb/kernel-line.js';
import { addEvent, emptyRecord, linkPort, MAX_PORTS, pruneRecord, type PortRecord } from '../../../src/features/usb/port-record.js';
import { KernelRecorder } from '../../../src/features/usb/recorder.js';

const NOON = Date.UTC(2026, 10, 24, 12, 0, 0);

function feed(record: PortRecord, lines: string[], at: number, controllerOfBus?: (bus: number) => string | undefined): void {
  for (const line of lines) {
    const event = classifyUsbLine(parseKernelLogLine(line)?.text ?? line);
    if (event) addEvent(record, event, at, { controllerOfBus });
  }
}

const fixture = (file: string): string[] =>
  readFileSync(new URL(`fixtures/${file}`, import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean);

describe('attribute: the evidence a person can check', () => {
  it('a port that failed 14 times with 3 phones is the cable or the port', () => {
    const record = emptyRecord();
    for (const [i, serial] of ['R58A', 'R58B', 'R58C'].entries()) {
      feed(record, [`usb 1-1.4.2: new high-speed USB device number ${i} using xhci_hcd`, `usb 1-1.4.2: SerialNumber: ${serial}`], NOON);
      const n = i === 0 ? 6 : 4;
      feed(
        record,
        Array.from({ length: n }, () => 'usb 1-1.4.2: device descriptor read/64, error -71'),
        NOON + i * 3_600_000,
      );
    }
    expect(attribute(record, { now: NOON + 3 * 3_600_000 })).toEqual([
      {
        layer: 'port',
        subject: '1-1.4.2',
        ports: ['1-1.4.2'],
        evidence: 'port 1-1.4.2: 14 enumeration failures today and yesterday (UTC) with 3 different phones: the cable or the hub port, not the phone',
      },
    ]);
  });

  it("counts a replay's failures that its first record, taken as now, puts after midnight", () => {
    // A replay started at 23:00 UTC: two hours into the recording is tomorrow.
    const late = Date.UTC(2026, 10, 24, 23, 0, 0);
    const record = emptyRecord();
    feed(record, ['usb 1-2.1: device descriptor read/64, error -71'], late + 2 * 3_600_000);
    feed(record, ['usb 1-2.2: device descriptor read/64, error -71'], late + 2 * 3_600_000 + 1_000);
    expect(attribute(record, { now: late }).map((v) => `${v.layer} ${v.subject}`)).toEqual(['hub 1-2']);
  });

  it('failures older than yesterday are not held against anything', () => {
    const record = emptyRecord();
    feed(
      record,
      [
        'usb 1-2: SerialNumber: A',
        'usb 1-2: device descriptor read/64, error -71',
        'usb 1-2: SerialNumber: B',
        'usb 1-2: device descriptor read/64, error -71',
      ],
      NOON,
    );
    expect(attribute(record, { now: NOON + 2 * 86_400_000 })).toEqual([]);
  });
});

describe('the record per port is bounded', () => {
  it('drops days older than a week, and ports left without any', () => {
    const record = emptyRecord();
    feed(record, ['usb 1-2: device descriptor read/64, error -71'], NOON);
    feed(record, ['usb 1-3: device descriptor read/64, error -71'], NOON + 6 * 86_400_000);
    pruneRecord(record, NOON + 7 * 86_400_000);
    expect(Object.keys(record.ports)).toEqual(['1-3']);
  });

  it('keeps at most MAX_PORTS ports, the least recently seen dropped', () => {
    const record = emptyRecord();
    for (let i = 0; i <= MAX_PORTS; i++) feed(record, [`usb 1-${i + 1}: device descriptor read/64, error -71`], NOON + i);
    expect(Object.keys(record.ports)).toHaveLength(MAX_PORTS);
    expect(record.ports['1-1']).toBeUndefined();
  });
});

describe("a controller's death and what follows it", () => {
  const controllerOfBus = (bus: number): string | undefined => (bus === 1 || bus === 2 ? '0000:01:00.0' : undefined);

  it('one death, however many of its lines (raspberrypi/linux#3404): the slot, bandwidth and port errors after it are its consequences, not limits', () => {
    const record = emptyRecord();
    feed(record, ['usb 1-1.2: SerialNumber: PHONE1', 'usb 1-1.3: SerialNumber: PHONE2'], NOON - 60_000, controllerOfBus);
    feed(record, fixture('rpi-linux-3404-hse.dmesg'), NOON, controllerOfBus);
    feed(
      record,
      [
        'xhci_hcd 0000:01:00.0: Error while assigning device slot ID',
        'xhci_hcd 0000:01:00.0: Max number of devices this xHCI host supports is 32.',
        "usb usb1-port1: couldn't allocate usb_device",
        'usb 1-1.2: Not enough bandwidth for new device state.',
        'usb 1-1.3: device descriptor read/64, error -71',
        'xhci_hcd 0000:01:00.0: Timeout while waiting for setup device command',
      ],
      NOON + 1_000,
      controllerOfBus,
    );
    const verdicts = attribute(record, { now: NOON + 2_000, controllerOfBus });
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ layer: 'controller', subject: '0000:01:00.0' });
    expect(verdicts[0]!.evidence).toBe(
      'controller 0000:01:00.0: the kernel found it dead once ("WARNING: Host System Error") today and yesterday (UTC); ' +
        "the 11 failure lines under it after its death are that death's consequences, not counted: the host controller, not the phones or hubs on it",
    );
  });

  it('a controller that enumerates a device again is alive: a limit after that is a limit', () => {
    const record = emptyRecord();
    feed(record, fixture('openwrt-1565.log'), NOON, () => 'f10f8000.usb3');
    feed(
      record,
      ['usb 2-1: new high-speed USB device number 4 using xhci-hcd', 'usb 2-1.3: Not enough bandwidth for new device state.'],
      NOON + 60_000,
      () => 'f10f8000.usb3',
    );
    expect(attribute(record, { now: NOON + 120_000, controllerOfBus: () => 'f10f8000.usb3' })[0]!.evidence).toMatch(
      /^controller f10f8000\.usb3: the kernel found it dead once \("Abort failed to stop command ring: -110"\), out of devices or bandwidth once[,: ]/,
    );
  });

  it("without sysfs, the bus lines say which controller a port is on; with neither, what may be a death's echo is never counted", () => {
    const known = emptyRecord();
    feed(
      known,
      [
        ...fixture('coreos-bugs-1019.dmesg'),
        'xhci_hcd 0000:00:14.0: xHCI host controller not responding, assume dead',
        'usb 1-4: Not enough bandwidth for new device state.',
      ],
      NOON,
    );
    expect(attribute(known, { now: NOON }).map((v) => v.evidence)).toEqual([
      expect.stringMatching(/^controller 0000:00:14\.0: the kernel found it dead once .*1 failure line under it after its death/),
    ]);
    const unknown = emptyRecord();
    feed(unknown, ['xhci_hcd 0000:00:14.0: HC died; cleaning up', 'usb 3-4: Not enough bandwidth for new device state.'], NOON);
    expect(attribute(unknown, { now: NOON }).map((v) => v.subject)).toEqual(['0000:00:14.0']);
  });

  it('a controller removed with its dock (intel/thunderbolt-software-user-space#16) is no death', () => {
    const record = emptyRecord();
    feed(record, fixture('thunderbolt-software-16.dmesg'), NOON);
    expect(attribute(record, { now: NOON })).toEqual([]);
  });

  it('a controller out of slots is a limit; "Max number of devices" after a slot error that is no limit says nothing (genodelabs/genode#5066)', () => {
    const aborted = emptyRecord();
    feed(aborted, fixture('genode-5066.log'), NOON);
    expect(attribute(aborted, { now: NOON })).toEqual([]);
    const full = emptyRecord();
    feed(
      full,
      [
        'xhci_hcd 0000:00:14.0: Error while assigning device slot ID: No Slots Available Error',
        'xhci_hcd 0000:00:14.0: Max number of devices this xHCI host supports is 32.',
      ],
      NOON,
    );
    expect(attribute(full, { now: NOON })[0]!.evidence).toMatch(/^controller 0000:00:14\.0: out of devices or bandwidth once /);
  });
});

describe("over-current: one port is its load, several ports are the hub's supply", () => {
  it("one port (StarLabsLtd/firmware#140) while its neighbours work: that port's phone or cable, covering that port only", () => {
    const record = emptyRecord();
    feed(record, ['usb 1-5: SerialNumber: NEIGHBOUR', 'usb 1-6: SerialNumber: LOADED'], NOON - 60_000);
    feed(record, fixture('starlabs-firmware-140.journal'), NOON);
    expect(attribute(record, { now: NOON })).toEqual([
      {
        layer: 'port',
        subject: '1-6',
        ports: ['1-6'],
        evidence:
          "port 1-6: over-current once today and yesterday (UTC) while the other ports of hub usb1 report none: the phone on it (LOADED) or its cable draws more than the port gives, not the hub's supply",
        advice: expect.stringMatching(/^swap the cable first/),
      },
    ]);
  });

  it("the hub's own over-current (hub_event(), 4.9 on), no port's: its supply, the whole hub", () => {
    const record = emptyRecord();
    feed(record, ['usb 1-1.4.1: SerialNumber: ON141', 'usb 1-1.4.2: SerialNumber: ON142'], NOON - 60_000);
    feed(record, ['hub 1-1.4:1.0: over-current condition'], NOON);
    expect(attribute(record, { now: NOON })).toEqual([
      {
        layer: 'hub-power',
        subject: '1-1.4',
        ports: [],
        wholeHub: true,
        evidence:
          "hub 1-1.4: over-current on the hub itself once today and yesterday (UTC): the hub's power supply (missing, too small or failing), not the phones on it",
      },
    ]);
  });

  it("every port of two root hubs (ddvk/remarkable2-recovery#15): each hub's supply", () => {
    const record = emptyRecord();
    feed(record, fixture('remarkable2-recovery-15.dmesg'), NOON);
    expect(attribute(record, { now: NOON }).map((v) => [v.layer, v.subject, v.wholeHub])).toEqual([
      ['hub-power', 'usb3', true],
      ['hub-power', 'usb4', true],
    ]);
  });
});

describe("a hub's ports failing in the kernel's per-port wording", () => {
  it('four ports failing together (cannot reset, Cannot enable, cannot disable) are the hub, counted on each port', () => {
    const record = emptyRecord();
    const lines = [1, 2, 3, 4].flatMap((p) => [
      `usb 1-1.2.4-port${p}: cannot reset (err = -71)`,
      `usb 1-1.2.4-port${p}: Cannot enable. Maybe the USB cable is bad?`,
      `usb 1-1.2.4-port${p}: cannot disable (err = -71)`,
    ]);
    feed(record, lines, NOON);
    expect(attribute(record, { now: NOON }).map((v) => [v.layer, v.subject, v.ports])).toEqual([
      ['hub', '1-1.2.4', ['1-1.2.4.1', '1-1.2.4.2', '1-1.2.4.3', '1-1.2.4.4']],
    ]);
    expect(record.ports['1-1.2.4.3']!.days['2026-11-24']!.failures).toEqual({ 'hub-port-error': 3 });
  });

  it("a hub's own status requests failing (bareboat-necessities/lysmarine_gen#316) are the hub; the errors of a hub being unplugged are not", () => {
    const record = emptyRecord();
    feed(record, fixture('lysmarine-gen-316.dmesg'), NOON);
    expect(attribute(record, { now: NOON }).find((v) => v.subject === '1-1.2.4')).toMatchObject({ layer: 'hub', wholeHub: true });
    const unplugged = emptyRecord();
    const recorder = new KernelRecorder(() => unplugged);
    for (const [i, line] of [
      'hub 1-1.2:1.0: hub_ext_port_status failed (err = -71)',
      'hub 1-1.2:1.0: hub_ext_port_status failed (err = -71)',
      'usb 1-1.2-port1: cannot disable (err = -71)',
      'usb 1-1.2: USB disconnect, device number 3',
    ].entries())
      recorder.add(classifyUsbLine(line)!, NOON + i * 10);
    recorder.flush();
    expect(attribute(unplugged, { now: NOON })).toEqual([]);
  });
});

describe('a phone is placed on a port by its source, never by a serial a device prints', () => {
  it('a gadget giving a phone\'s serial on another port does not make the phone "failed on 2 ports"', () => {
    const record = emptyRecord();
    // adb lists the phone on 1-1.2 (its usb path); a gadget on 2-1.3 prints the same serial.
    linkPort(record, '1-1.2', 'udid-real', ['R58REAL', 'udid-real'], NOON);
    for (const port of ['1-1.2', '2-1.3'])
      feed(
        record,
        [
          `usb ${port}: SerialNumber: R58REAL`,
          `usb ${port}: device descriptor read/64, error -71`,
          `usb ${port}: reset high-speed USB device number 4 using xhci_hcd`,
        ],
        NOON,
      );
    expect(attribute(record, { now: NOON }).filter((v) => v.layer === 'phone')).toEqual([]);
    // The phone itself, moved by hand to 2-1.3 and listed there by adb, failing there too: the phone.
    linkPort(record, '2-1.3', 'udid-real', ['R58REAL', 'udid-real'], NOON + 1_000);
    expect(
      attribute(record, { now: NOON + 1_000 })
        .filter((v) => v.layer === 'phone')
        .map((v) => v.subject),
    ).toEqual(['R58REAL']);
  });
});

describe('a death whose controller cannot be placed', () => {
  it('without sysfs or a bus line, the echoes are not counted until a device enumerates on a bus no controller is known for', () => {
    const record = emptyRecord();
    feed(record, ['xhci_hcd 0000:00:14.0: HC died; cleaning up', 'usb 3-4: Not enough bandwidth for new device state.'], NOON);
    expect(attribute(record, { now: NOON }).map((v) => v.layer)).toEqual(['controller']);
    // A device enumerates on bus 3: a controller works there; what fails after that counts.
    feed(record, ['usb 3-4: new high-speed USB device number 9 using xhci_hcd', 'usb 3-4: Not enough bandwidth for new device state.'], NOON + 60_000);
    expect(attribute(record, { now: NOON + 60_000 }).map((v) => v.evidence)).toEqual([
      expect.stringMatching(/^controller 0000:00:14\.0: the kernel found it dead once .*1 failure line under it/),
      expect.stringMatching(/^controller bus 3: out of devices or bandwidth once /),
    ]);
  });
});
