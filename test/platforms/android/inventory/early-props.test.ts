import { describe, expect, it } from 'vitest';
import { EarlyProps } from '../../../../src/platforms/android/inventory/early-props.js';
import { marker } from '../../../../src/platforms/android/inventory/script.js';

// The property dump of a running inventory, the moment its section is whole
// (issue 42): not before the next delimiter, once, and across chunk cuts
// that split a character.

const output = (dump: string) => `${marker('props')}\n${dump}\n${marker('imei')}\n`;

describe('EarlyProps', () => {
  it('gives the dump once the next delimiter has arrived, not before, and only once', () => {
    const text = output('[ro.serialno]: [FA69P0301911]\n[ro.product.model]: [Pixel]');
    const watch = new EarlyProps();
    const cut = text.indexOf(marker('imei')) + 5;
    expect(watch.push(Buffer.from(text.slice(0, cut)))).toBeUndefined();
    expect(watch.push(Buffer.from(text.slice(cut)))).toBe('[ro.serialno]: [FA69P0301911]\n[ro.product.model]: [Pixel]');
    expect(watch.push(Buffer.from(`dumpsys output\n${marker('sim_state')}\n`))).toBeUndefined();
  });

  it('keeps a character whose bytes two chunks split', () => {
    const bytes = Buffer.from(output('[ro.product.model]: [Téléphone]'));
    const at = bytes.indexOf(Buffer.from('é')) + 1;
    const watch = new EarlyProps();
    expect(watch.push(bytes.subarray(0, at))).toBeUndefined();
    expect(watch.push(bytes.subarray(at))).toBe('[ro.product.model]: [Téléphone]');
  });

  it('gives nothing while the script has not reached the dump, nor for a script without one', () => {
    const watch = new EarlyProps();
    expect(watch.push(Buffer.from(`${marker('battery')}\nlevel: 80\n${marker('uptime')}\n1.0 2.0\n`))).toBeUndefined();
  });
});
