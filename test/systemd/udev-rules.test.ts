import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// udevadm on systemd 252 has no offline "verify", and this machine has no
// USB devices to "test" against, so the shipped rules are checked for the
// mistakes that make udev skip a line silently: a bad operator, an
// unbalanced quote, a GOTO to a missing LABEL.

const rulesPath = resolve(dirname(fileURLToPath(import.meta.url)), '../../systemd/52-device-agent-adb.rules');

interface Token {
  key: string;
  attr?: string;
  op: string;
  value: string;
}

/** The tokens of one rule line, or a description of what is wrong with it. */
function tokens(line: string): Token[] | string {
  const found: Token[] = [];
  const token = /\s*([A-Z_]+)(?:\{([^}]*)\})?\s*(==|!=|\+=|-=|:=|=)\s*"((?:[^"\\]|\\.)*)"\s*(,|$)/y;
  let at = 0;
  while (at < line.length) {
    token.lastIndex = at;
    const match = token.exec(line);
    if (!match) return `cannot read from column ${at + 1}: ${line.slice(at)}`;
    const [, key = '', attr, op = '', value = ''] = match;
    found.push(attr === undefined ? { key, op, value } : { key, attr, op, value });
    at = token.lastIndex;
  }
  return found;
}

const matchKeys = new Set(['ACTION', 'SUBSYSTEM', 'ENV', 'ATTR', 'ATTRS', 'KERNEL', 'DEVPATH', 'DRIVER', 'TAG']);
const assignKeys = new Set(['MODE', 'GROUP', 'OWNER', 'ENV', 'TAG', 'SYMLINK', 'RUN', 'IMPORT', 'GOTO', 'LABEL']);

describe('udev rules', () => {
  it('every line is well formed and every GOTO has its LABEL', async () => {
    const lines = (await readFile(rulesPath, 'utf8')).split('\n').filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
    expect(lines.length).toBeGreaterThan(3);
    const labels = new Set<string>();
    const gotos: string[] = [];
    for (const line of lines) {
      const parsed = tokens(line);
      expect(parsed, line).toBeInstanceOf(Array);
      for (const t of parsed as Token[]) {
        const isMatch = t.op === '==' || t.op === '!=';
        expect(isMatch ? matchKeys : assignKeys, `${t.key} ${t.op} in: ${line}`).toContain(t.key);
        if (t.key === 'LABEL') labels.add(t.value);
        if (t.key === 'GOTO') gotos.push(t.value);
      }
    }
    expect(gotos.length).toBeGreaterThan(0);
    for (const target of gotos) expect(labels).toContain(target);
  });

  it('gives ADB devices to plugdev, mode 0660, and nothing to everyone', async () => {
    const text = await readFile(rulesPath, 'utf8');
    const adb = text.split('\n').find((l) => l.includes('ff4201'));
    expect(adb).toBeDefined();
    const parsed = tokens(adb!) as Token[];
    expect(parsed).toContainEqual({ key: 'GROUP', op: '=', value: 'plugdev' });
    expect(parsed).toContainEqual({ key: 'MODE', op: '=', value: '0660' });
    expect(text).not.toMatch(/MODE\s*:?=\s*"0?666"/);
  });

  it('the line reader rejects what udev would skip', () => {
    expect(tokens('ENV{ID_USB_INTERFACES}=="*:ff4201:*", MODE="0660"')).toEqual([
      { key: 'ENV', attr: 'ID_USB_INTERFACES', op: '==', value: '*:ff4201:*' },
      { key: 'MODE', op: '=', value: '0660' },
    ]);
    expect(typeof tokens('MODE="0660" GROUP="plugdev"')).toBe('string');
    expect(typeof tokens('MODE=="0660')).toBe('string');
    expect(typeof tokens('MODE=>"0660"')).toBe('string');
  });
});
