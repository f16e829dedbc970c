import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildParts } from '../../src/agent/build.js';
import { loadSettings } from '../../src/config/load.js';
import { limited } from '../../src/log/limited.js';
import { VirtualTime } from '../support/virtual-time.js';
import { captureLogger } from '../log/capture.js';

// The wiring hands the agent's clock to its logger (issue 41): every
// limited(logger) of the agent, called without a clock in the watchers, the
// sources and the actions, counts and wakes its summaries on that time line.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('buildParts: the logger carries the clock', () => {
  it("a line held back by limited(logger) is summed up when due on the agent's clock", () => {
    const dir = mkdtempSync(join(tmpdir(), 'build-clock-'));
    dirs.push(dir);
    const env = { DEVICE_AGENT_STATE_DIR: dir };
    const time = new VirtualTime();
    const { logger, lines } = captureLogger();
    buildParts(loadSettings({ env }), env, logger, { nodeId: 'build-clock', clock: time.clock() });
    const before = lines().length;
    for (let i = 0; i < 12; i++) limited(logger).warn('adb-unreachable', {}, 'connect ECONNREFUSED 127.0.0.1:5037');
    expect(lines().length - before).toBe(10);
    time.advance(59_999);
    expect(lines().length - before).toBe(10);
    time.advance(1);
    expect(lines().slice(before + 10)).toEqual([expect.objectContaining({ cause: 'adb-unreachable', suppressed: 2 })]);
  });
});
