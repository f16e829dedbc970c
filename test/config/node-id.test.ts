import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/load.js';
import { resolveNodeId } from '../../src/config/node-id.js';
import { parseNodeIdFile } from '../../src/config/node-id-text.js';
import { captureLogger } from '../log/capture.js';

// The node-id file as a crash, an editor or a stray tool leaves it.

const stateDir = () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'da-nodeid-')), 'state');
  return { dir, settings: loadSettings({ env: { DEVICE_AGENT_STATE_DIR: dir } }), file: join(dir, 'node-id') };
};

describe('a node-id file the agent did not leave as it wrote it', () => {
  it('empty or all NUL bytes (a power loss soon after it was first written): a new id, kept, with a warning saying what to do', () => {
    for (const lost of ['', '\n', '\u0000'.repeat(37), '\u0000'.repeat(4096)]) {
      const { dir, settings, file } = stateDir();
      resolveNodeId(settings, {});
      writeFileSync(file, lost);
      const { logger, lines } = captureLogger();
      const id = resolveNodeId(settings, {}, logger);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(readFileSync(join(dir, 'node-id'), 'utf8')).toBe(`${id}\n`);
      expect(lines()).toHaveLength(1);
      expect(lines()[0]).toMatchObject({ level: 'warn', nodeId: id, msg: expect.stringMatching(/was empty or only NUL bytes.*set DEVICE_AGENT_NODE_ID/) });
      expect(resolveNodeId(settings, {}, logger)).toBe(id);
    }
  });

  it('odd bytes, several lines or a huge file: a configuration error naming the file and what to do, never an id sent as is', () => {
    const cases: Array<[string, RegExp]> = [
      ['lab\u0000host\n', /holds the control character U\+0000 at position 4/],
      ['lab-7\u001b[31m\n', /U\+001B at position 6/],
      ['lab-7\nlab-8\n', /U\+000A at position 6/],
      ['x'.repeat(100_000), /is 100000 characters long \(at most 200\)/],
    ];
    for (const [text, problem] of cases) {
      const { settings, file } = stateDir();
      resolveNodeId(settings, {});
      writeFileSync(file, text);
      expect(() => resolveNodeId(settings, {})).toThrow(problem);
      expect(() => resolveNodeId(settings, {})).toThrow(
        /stateDir \(DEVICE_AGENT_STATE_DIR\): .*node-id is not a node id the agent wrote.*DEVICE_AGENT_NODE_ID.*delete the file/,
      );
    }
    // Bytes that are not UTF-8 arrive as U+FFFD.
    const { settings, file } = stateDir();
    resolveNodeId(settings, {});
    writeFileSync(file, Buffer.from([0x6c, 0x61, 0x62, 0xff, 0x0a]));
    expect(() => resolveNodeId(settings, {})).toThrow(/not UTF-8 text/);
  });

  it('a BOM and blanks an editor added are not part of the id', () => {
    expect(parseNodeIdFile('\ufefflab-7 \r\n')).toEqual({ kind: 'id', id: 'lab-7' });
  });

  it('a configured id with a control character is refused at start, naming the variable', () => {
    expect(() => loadSettings({ env: { DEVICE_AGENT_NODE_ID: 'lab\u00077' } })).toThrow(/nodeId \(DEVICE_AGENT_NODE_ID\): holds the control character U\+0007/);
    expect(() => loadSettings({ env: { DEVICE_AGENT_NODE_ID: 'x'.repeat(201) } })).toThrow(/at most 200/);
    expect(loadSettings({ env: { DEVICE_AGENT_NODE_ID: 'lab-7 ü' } }).nodeId).toBe('lab-7 ü');
  });
});
