import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyUsbLine } from '../../../src/features/usb/classify.js';
import { parseKernelLogLine } from '../../../src/features/usb/kernel-line.js';
import { KERNEL_MESSAGES, type KernelMessage, type Named } from '../../../src/features/usb/messages.js';

// Every entry of the kernel message catalogue (src/features/usb/messages.ts),
// each tested on a real line where a public report quotes one (the fixture
// and its line; fixtures/README.md names each source), else on a line built
// from its format string, as the kernel would print it.

const REAL: Record<string, [file: string, line: number]> = {
  'new-device': ['flutter-120452.dmesg', 4],
  'new-device-superspeed': ['displaylink-debian-73.dmesg', 4],
  'descriptor-read-64': ['dasharo-issues-1132.dmesg', 1],
  'descriptor-read-8': ['ieeerobotics-bot-82.dmesg', 2],
  'descriptor-read-all': ['ieeerobotics-bot-82.dmesg', 1],
  'not-accepting-address': ['rpi-linux-3309.dmesg', 2],
  'slow-speed': ['cubietruck-debian-58.dmesg', 2],
  'config-read': ['openwrt-forum-21983.log', 1],
  'string-descriptor-0': ['openwrt-forum-21983.log', 2],
  'no-configuration': ['openwrt-forum-21983.log', 3],
  disconnect: ['displaylink-debian-73.dmesg', 3],
  serial: ['displaylink-debian-73.dmesg', 9],
  'device-string': ['displaylink-debian-73.dmesg', 7],
  'device-found': ['flutter-120452.dmesg', 5],
  'device-found-old': ['displaylink-debian-73.dmesg', 5],
  'device-strings': ['displaylink-debian-73.dmesg', 6],
  'clear-tt': ['lysmarine-gen-316.dmesg', 6],
  'bandwidth-device': ['displaylink-debian-104.dmesg', 1],
  'bandwidth-altsetting': ['displaylink-debian-104.dmesg', 2],
  'device-not-responding-setup': ['ha-operating-system-773.dmesg', 3],
  'resources-device': ['synthetic.kmsg', 6],
  reset: ['synthetic.kmsg', 1],
  'port-cannot-reset': ['lysmarine-gen-316.dmesg', 1],
  'port-cannot-enable': ['flutter-120452.dmesg', 1],
  'port-cannot-disable': ['displaylink-debian-73.dmesg', 2],
  'port-connect-debounce': ['nitehawk-sb-12.dmesg', 1],
  'port-emi': ['libfx2-2.dmesg', 1],
  'port-config-error': ['openwrt-1565.log', 1],
  'port-over-current': ['starlabs-firmware-140.journal', 1],
  'port-over-current-change': ['squeezelite-122.dmesg', 1],
  'port-over-current-change-old': ['re4son-kernel-builder-6.dmesg', 1],
  'port-unable-to-enumerate': ['dasharo-issues-1132.dmesg', 3],
  'port-power-cycle': ['rpi-linux-3309.dmesg', 4],
  'port-cannot-allocate': ['genode-5066.log', 3],
  'hub-cannot-enable-port': ['old-hub-wordings.syslog', 1],
  'hub-unable-to-enumerate-port': ['old-hub-wordings.syslog', 2],
  'hub-cannot-disable-port': ['synthetic.kmsg', 4],
  'hub-over-current-change-port': ['synthetic.kmsg', 5],
  'hub-port-status': ['lysmarine-gen-316.dmesg', 4],
  'bus-registered': ['coreos-bugs-1019.dmesg', 1],
  'hcd-remove': ['thunderbolt-software-16.dmesg', 1],
  'bus-deregistered': ['thunderbolt-software-16.dmesg', 5],
  'hc-died': ['openwrt-1565.log', 4],
  'xhci-assume-dead': ['openwrt-1565.log', 3],
  'xhci-stop-endpoint-old': ['rpi-linux-3404-hse.dmesg', 3],
  'xhci-abort-ring': ['openwrt-1565.log', 2],
  'xhci-host-system-error': ['rpi-linux-3404-hse.dmesg', 1],
  'xhci-halt-failed': ['rpi-linux-3404-hse.dmesg', 2],
  'xhci-reset-failed': ['thunderbolt-software-16.dmesg', 4],
  'xhci-setup-timeout': ['zigbee2mqtt-1220.dmesg', 3],
  'xhci-slot-other': ['genode-5066.log', 1],
  'xhci-max-devices': ['pop-os-linux-307.dmesg', 2],
  'xhci-setup-error': ['rpi-linux-3309.dmesg', 1],
};

/** Where the synthetic fixture's lines come from: they are written for the tests, after the kernel's formats. */
const SYNTHETIC_FILES = new Set(['synthetic.kmsg']);

function fixtureLine(file: string, n: number): string {
  return readFileSync(new URL(`fixtures/${file}`, import.meta.url), 'utf8').split('\n')[n - 1]!;
}

const WHO: Record<Named, string> = {
  device: 'usb 1-1.4.2',
  port: 'usb 1-1.4-port2',
  hub: 'hub 1-1.4:1.0',
  controller: 'xhci_hcd 0000:00:14.0',
  xhci: 'xhci_hcd 0000:00:14.0',
  ehci: 'ehci-pci 0000:00:1d.0',
  ohci: 'ohci-pci 0000:00:13.0',
};

/** A line as the kernel prints the entry's format, each conversion filled with a value it allows. */
function lineOf(entry: KernelMessage, pick: (conversion: string, index: number, strings: number) => string = defaults(entry)): string {
  let i = 0;
  let strings = 0;
  const text = entry.format.replace(/%(?:[-+ #0]*)(?:\d*)(?:\.\d+)?(?:hh|h|ll|l|z|j|t)?(?:p[A-Za-z]*|([diuxXsc%]))/g, (_, kind: string | undefined) => {
    if (kind === '%') return '%';
    const value = pick(kind ?? 'p', i, kind === 's' ? strings++ : -1);
    i++;
    return value;
  });
  return `${WHO[entry.named]}: ${text}`;
}

function defaults(entry: KernelMessage): (conversion: string, index: number, strings: number) => string {
  return (kind, index, s) => {
    const allowed = entry.values?.[index];
    if (allowed) return allowed[0]!;
    if (kind === 's') {
      const arg = entry.args?.[s] ?? 'word';
      return arg === 'word' ? 'xhci_hcd' : arg === 'data' ? 'some text' : arg[0]!;
    }
    if (kind === 'd' || kind === 'i') return index === 1 && /error|err/.test(entry.format) ? '-71' : '3';
    if (kind === 'x' || kind === 'X') return '1d6b';
    return '3';
  };
}

describe('the catalogue of kernel messages', () => {
  it('has one entry per id, and every real line named above is one of its entries', () => {
    const ids = KERNEL_MESSAGES.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of Object.keys(REAL)) expect(ids).toContain(id);
  });

  it.each(
    KERNEL_MESSAGES.map((m) => ({
      ...m,
      name: `${m.id}: ${REAL[m.id] && !SYNTHETIC_FILES.has(REAL[m.id]![0]) ? `real line (${REAL[m.id]![0]})` : 'a line built from its format'}`,
    })),
  )('$name', (entry) => {
    const real = REAL[entry.id];
    const line = real ? fixtureLine(...real) : lineOf(entry);
    const parsed = parseKernelLogLine(line);
    expect(parsed, line).toBeDefined();
    const event = classifyUsbLine(parsed!.text);
    expect(event, line).toMatchObject({ id: entry.id, kind: entry.kind, role: entry.role });
  });

  it("a device's words that end a line and are blank still read as their entry: the reader strips the line's trailing spaces (the property's seed -186481520)", () => {
    expect(classifyUsbLine('usb 1-1.2: Product:   ')).toMatchObject({ id: 'device-string' });
    expect(classifyUsbLine('xhci_hcd 0000:00:14.0: Error while assigning device slot ID:  ')?.id).toMatch(/^xhci-slot-/);
  });

  it('property: a line built from any entry, with any values its conversions allow, is read as that entry (or one of the same format)', () => {
    const entry = fc.constantFrom(...KERNEL_MESSAGES);
    fc.assert(
      fc.property(
        entry,
        fc.array(fc.integer({ min: -200, max: 100_000 }), { minLength: 8, maxLength: 8 }),
        // Never empty: the kernel prints a device string or a completion code only when it has one (show_string, xhci_trb_comp_code_string).
        fc.string({ minLength: 1, maxLength: 40 }),
        (m, numbers, data) => {
          const line = lineOf(m, (kind, index, s) => {
            const allowed = m.values?.[index];
            if (allowed) return allowed[0]!;
            if (kind === 's') {
              const arg = m.args?.[s] ?? 'word';
              return arg === 'word' ? 'xhci-hcd' : arg === 'data' ? data : arg[Math.abs(numbers[index]!) % arg.length]!;
            }
            const n = numbers[index]!;
            if (kind === 'u') return String(Math.abs(n));
            if (kind === 'x' || kind === 'X') return Math.abs(n).toString(16);
            return String(n);
          });
          const event = classifyUsbLine(line);
          const same = KERNEL_MESSAGES.filter((o) => o.format === m.format && o.named === m.named).map((o) => o.id);
          // An entry whose value is constrained (error -28) is met only by that value: the general one reads the rest.
          expect(same, line).toContain(event?.id);
        },
      ),
    );
  });
});

// docs/reference/usb-kernel-messages.md holds the catalogue between its
// markers, a row per entry in its order: the format, whom it names and its
// role are the entry's; the source, kernels, what it points at and what it
// says are the page's own (the daemon reads none of them).
const DOC = new URL('../../../docs/reference/usb-kernel-messages.md', import.meta.url);
const BEGIN = '<!-- catalogue: one row per entry of src/features/usb/messages.ts, in its order (test/features/usb/messages.test.ts) -->';
const END = '<!-- catalogue end -->';
const HEADER = ['| format string | names | source | kernels | points at | role | what it says |', '|---|---|---|---|---|---|---|'];
const POINTS_AT = ['port, cable or phone', 'port', 'hub', 'hub supply', 'port load', 'controller', 'nothing'];

const NAMED_AS: Record<Named, string> = {
  device: '`usb 1-1.4.2:` the device',
  port: '`usb 1-1.4-port2:` the port',
  hub: '`hub 1-1.4:1.0:` the hub',
  controller: '`xhci_hcd 0000:00:14.0:` the controller (any driver)',
  xhci: 'the controller (xHCI)',
  ehci: 'the controller (EHCI)',
  ohci: 'the controller (OHCI)',
};

/** The format, names and role cells of an entry's row, as the page writes them. */
function entryCells(m: KernelMessage): { format: string; names: string; role: string } {
  const values = m.values
    ? ` (only with ${Object.values(m.values)
        .map((v) => v!.join(' or '))
        .join(', ')})`
    : '';
  const args = (m.args ?? []).map((a) =>
    a === 'data' ? "a device's or free text" : a === 'word' ? 'one word' : a.map((x) => (x === '' ? '""' : `"${x}"`)).join(' / '),
  );
  const held = args.length ? `; %s: ${args.join('; ')}` : '';
  return { format: `\`${m.format}\`${values}`, names: `${NAMED_AS[m.named]}${held}`, role: m.role };
}

describe('docs/reference/usb-kernel-messages.md', () => {
  it('holds the catalogue as it is, every entry in its order, each row saying its source, kernels, what it points at and what it says', () => {
    const doc = readFileSync(DOC, 'utf8');
    const begin = doc.indexOf(BEGIN);
    const end = doc.indexOf(END);
    expect(begin).toBeGreaterThan(0);
    const [header, rule, ...rows] = doc
      .slice(begin + BEGIN.length, end)
      .trim()
      .split('\n');
    expect([header, rule]).toEqual(HEADER);
    expect(rows).toHaveLength(KERNEL_MESSAGES.length);
    KERNEL_MESSAGES.forEach((m, i) => {
      const [format, names, source, kernels, pointsAt, role, says] = rows[i]!.replace(/^\| | \|$/g, '').split(' | ');
      expect({ format, names, role }, m.id).toEqual(entryCells(m));
      expect(
        [source, kernels, says].every((cell) => cell !== undefined && cell.trim() !== ''),
        m.id,
      ).toBe(true);
      expect(POINTS_AT, m.id).toContain(pointsAt);
    });
  });
});
