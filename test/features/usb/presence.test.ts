import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyUsbLine } from '../../../src/features/usb/classify.js';
import { parseKernelLogLine } from '../../../src/features/usb/kernel-line.js';
import { cycledOf, PortWords, seenOf } from '../../../src/features/usb/presence.js';

// Whether the kernel has a phone on a port, from real kernel lines
// (fixtures/README.md names each source) and sysfs's serials on ports.

const T0 = Date.UTC(2026, 0, 5, 12);

/** The fixture's lines fed in at T0 (a dmesg line gives no record time), and any lines given after. */
function wordsOf(file: string, ...more: string[]): PortWords {
  const words = new PortWords();
  const text = readFileSync(new URL(`fixtures/${file}`, import.meta.url), 'utf8');
  for (const line of [...text.split('\n'), ...more].filter(Boolean)) {
    const parsed = parseKernelLogLine(line);
    const event = parsed && classifyUsbLine(parsed.text);
    if (event) words.add(event, T0 + (parsed.tsUs ?? 0) / 1000);
  }
  return words;
}

const none = (): undefined => undefined;

describe('a phone on USB or not', () => {
  it('is not enumerated when sysfs shows none of its serials and the kernel last saw its port disconnect (raspberrypi/linux #3404)', () => {
    // The phone's serial read on 1-1.3 before the controller died and took it down.
    const words = wordsOf('rpi-linux-3404.dmesg');
    const seen = seenOf(['R58P'], '1-1.3', new Map(), words, () => ({
      layer: 'controller',
      subject: '0000:01:00.0',
      evidence: 'controller 0000:01:00.0: dead',
    }));
    expect(seen).toEqual({
      enumerated: false,
      port: '1-1.3',
      hub: '1-1',
      last: 'disconnected',
      at: T0,
      blame: { layer: 'controller', subject: '0000:01:00.0', evidence: 'controller 0000:01:00.0: dead' },
    });
  });

  it('finds its port from the serial the kernel last read there when adb gives no usb path, and says nothing once sysfs shows it again', () => {
    const words = wordsOf('rpi-linux-3404.dmesg');
    words.add(classifyUsbLine('usb 1-1.3: SerialNumber: R58P')!, T0);
    words.add(classifyUsbLine('usb 1-1.3: USB disconnect, device number 4')!, T0 + 1_000);
    expect(seenOf(['R58P'], undefined, new Map(), words, none)).toMatchObject({ enumerated: false, port: '1-1.3' });
    expect(seenOf(['R58P'], undefined, new Map([['R58P', ['1-1.2']]]), words, none)).toEqual({ enumerated: true, port: '1-1.2' });
    // Never seen by the kernel, on no port: nothing to go on.
    expect(seenOf(['OTHER'], undefined, new Map(), words, none)).toBeUndefined();
  });

  it("on adb's usb path only: a device elsewhere giving the phone's serial is not the phone", () => {
    const words = wordsOf('rpi-linux-3404.dmesg');
    // The phone dropped off 1-1.3; a gadget on 2-4 gives its serial.
    expect(seenOf(['R58P'], '1-1.3', new Map([['R58P', ['2-4']]]), words, none)).toMatchObject({ enumerated: false, port: '1-1.3' });
    expect(seenOf(['R58P'], '1-1.3', new Map([['R58P', ['1-1.3', '2-4']]]), words, none)).toEqual({ enumerated: true, port: '1-1.3' });
  });

  it('a port that dropped and came back (GlasgowEmbedded/libfx2 #2) is not taken for off USB and counts as cycled; one that only dropped counts as dropped, not back', () => {
    const back = wordsOf('libfx2-2.dmesg');
    expect(seenOf(['FX2'], '1-6', new Map(), back, none)).toBeUndefined();
    expect(cycledOf(back, '1-6', T0)).toEqual({ dropped: true, back: true });
    // Asked about a cycle after those lines: the port has not dropped since.
    expect(cycledOf(back, '1-6', T0 + 300_000_000)).toEqual({ dropped: false, back: false });
    expect(cycledOf(wordsOf('rpi-linux-3404.dmesg'), '1-1.3', T0)).toEqual({ dropped: true, back: false });
  });
});
