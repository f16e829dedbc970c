import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dryRunNodeId } from '../../src/cli/once.js';
import { loadSettings } from '../../src/config/load.js';
import { captureLogger } from '../log/capture.js';

describe('once --dry-run without a state directory it can write', () => {
  it('uses a temporary node id and says why, naming the directory and what to set; it sends nothing, so it goes on', () => {
    const dir = mkdtempSync(join(tmpdir(), 'da-dry-node-id-'));
    // A file where the state directory should be: mkdir fails, even for root.
    const stateDir = join(dir, 'not-a-directory');
    writeFileSync(stateDir, 'a file\n');
    const env = { DEVICE_AGENT_STATE_DIR: stateDir };
    const { logger, lines } = captureLogger();
    const id = dryRunNodeId({ settings: loadSettings({ env }), logger, warnings: [], variables: [] }, env);
    expect(id).toBe('dry-run-unsaved-node-id');
    const warned = lines().filter((l) => l.level === 'warn');
    expect(warned).toHaveLength(1);
    expect(String(warned[0]!.msg)).toMatch(
      new RegExp(
        `^stateDir \\(DEVICE_AGENT_STATE_DIR\\): cannot keep the node id in ${stateDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .+; set DEVICE_AGENT_NODE_ID or a writable DEVICE_AGENT_STATE_DIR; this dry run uses a temporary node id$`,
      ),
    );
  });

  it('with a node id set, uses it and says nothing', () => {
    const env = { DEVICE_AGENT_NODE_ID: 'lab-node-7', DEVICE_AGENT_STATE_DIR: '/nonexistent/da' };
    const { logger, lines } = captureLogger();
    expect(dryRunNodeId({ settings: loadSettings({ env }), logger, warnings: [], variables: [] }, env)).toBe('lab-node-7');
    expect(lines().filter((l) => l.level === 'warn')).toEqual([]);
  });
});
