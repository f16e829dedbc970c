import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attribute } from '../../../src/features/usb/attribution.js';
import { classifyUsbLine } from '../../../src/features/usb/classify.js';
import { parseKernelLogLine } from '../../../src/features/usb/kernel-line.js';
import { KERNEL_MESSAGES } from '../../../src/features/usb/messages.js';
import { emptyRecord } from '../../../src/features/usb/port-record.js';
import { KernelRecorder } from '../../../src/features/usb/recorder.js';

// What a USB device says of itself (its product, manufacturer and serial
// strings, which the kernel prints as "Product: ...", "Manufacturer: ...",
// "SerialNumber: ...") is data: a gadget naming itself "Not enough bandwidth
// for new device state." or "over-current condition" must count as nothing
// and blame nothing, whichever way the line reaches the agent: as a
// /dev/kmsg record (the kernel escapes its control bytes, a newline
// included) or as dmesg prints it (a newline in a message goes on an
// indented line).

const NOW = Date.UTC(2026, 10, 24, 12);

/** The kernel's own texts, rendered from the catalogue, and the same ahead of a newline and a device path. */
const kernelTexts = KERNEL_MESSAGES.map((m) =>
  m.format.replace(/%[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t)?(?:p[A-Za-z]*|([diuxXsc]))/g, (_, k: string | undefined) => (k === 's' ? 'xhci_hcd' : '3')),
);
const deviceString = fc.oneof(
  fc.constantFrom(...kernelTexts),
  fc.constantFrom(...kernelTexts).map((t) => `x\nusb 1-1.4.3: ${t}`),
  fc.constantFrom(...kernelTexts).map((t) => `x\nhub 1-1:1.0: ${t}`),
  fc.constantFrom(...kernelTexts).map((t) => `x\nxhci_hcd 0000:00:14.0: ${t}`),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
);

/** A message as /dev/kmsg gives it (Documentation/ABI/testing/dev-kmsg: bytes below 0x20, from 0x7f, and "\" as \xNN). */
function kmsgRecord(seq: number, message: string): string {
  const bytes = Buffer.from(message, 'utf8');
  let text = '';
  for (const b of bytes) text += b < 0x20 || b >= 0x7f || b === 0x5c ? `\\x${b.toString(16).padStart(2, '0')}` : String.fromCharCode(b);
  return `6,${seq},${seq * 1000},-;${text}`;
}

/** The same as util-linux dmesg prints it: a newline in the message goes on a line indented past the time. */
function dmesgLines(seq: number, message: string): string[] {
  const [first, ...rest] = message.split('\n');
  return [`[${String(seq).padStart(6)}.000000] ${first!}`, ...rest.map((r) => `${' '.repeat(15)}${r}`)];
}

describe("a device's own strings are data", () => {
  it('property: any product, manufacturer or serial string in its line counts nothing and blames nothing, as a /dev/kmsg record or as dmesg prints it', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            port: fc.constantFrom('1-1.1', '1-1.2', '1-1.3', '2-1'),
            id: fc.constantFrom('Product', 'Manufacturer', 'SerialNumber'),
            text: deviceString,
          }),
          {
            minLength: 1,
            maxLength: 12,
          },
        ),
        fc.boolean(),
        (strings, asKmsg) => {
          const record = emptyRecord();
          const recorder = new KernelRecorder(() => record);
          let seq = 1;
          for (const s of strings) {
            const message = `usb ${s.port}: ${s.id}: ${s.text}`;
            const lines = asKmsg ? [kmsgRecord(seq, message)] : dmesgLines(seq, message);
            seq++;
            for (const line of lines) {
              const parsed = parseKernelLogLine(line);
              const event = parsed && classifyUsbLine(parsed.text);
              if (event) {
                expect(event.role, line).toBe('fact');
                recorder.add(event, NOW + seq);
              }
            }
          }
          recorder.flush();
          expect(attribute(record, { now: NOW + seq })).toEqual([]);
          for (const entry of Object.values(record.ports)) for (const day of Object.values(entry.days)) expect(day.failures).toEqual({});
        },
      ),
    );
  });

  it("a gadget named after the kernel's bandwidth message is no controller limit; a real line is", () => {
    expect(classifyUsbLine('usb 1-1.2: Product: Not enough bandwidth for new device state.')).toMatchObject({ role: 'fact', kind: 'note' });
    expect(classifyUsbLine('usb 1-1.2: Manufacturer: over-current condition')).toMatchObject({ role: 'fact', kind: 'note' });
    expect(classifyUsbLine('usb 1-1.2: SerialNumber: device descriptor read/64, error -71')).toMatchObject({
      role: 'fact',
      kind: 'serial',
      serial: 'device descriptor read/64, error -71',
    });
    expect(classifyUsbLine('usb 1-1.2: Not enough bandwidth for new device state.')).toMatchObject({ role: 'cause', kind: 'controller-limit' });
  });
});
