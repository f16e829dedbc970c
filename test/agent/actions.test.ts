import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildParts, readOnce, type Parts } from '../../src/agent/build.js';
import { inStartOrder, type ActionLook, type DeviceAction } from '../../src/actions/runner.js';
import { loadSettings } from '../../src/config/load.js';
import type { Feature } from '../../src/features/context.js';
import { captureLogger } from '../log/capture.js';

// The actions are the registered features' (src/agent/features.ts): the
// wiring runs each on the one runner, in the order of what it acts on, and
// names none of them.

function parts(): Parts {
  const env = { DEVICE_AGENT_STATE_DIR: mkdtempSync(join(tmpdir(), 'actions-')) };
  return buildParts(loadSettings({ env }), env, captureLogger().logger, { nodeId: 'actions-test' });
}

/** A feature whose action says what it saw of the runner at each look. */
function probe(name: string, actsOn: DeviceAction['actsOn'], seen: Array<{ name: string; look: ActionLook }>, readOnce = false): Feature {
  return {
    name,
    action: { name, actsOn, tickMs: 60_000, wanted: true, readOnce, decide: (look) => (seen.push({ name, look }), []), apply: () => undefined },
  };
}

const actionsOf = (features: readonly Feature[]) => inStartOrder(features.flatMap((f) => (f.action ? [f.action] : [])));

describe('the actions of the registered features, in the order of what they act on', () => {
  it("recovery (the link), charge control (the port's power), then Samsung protection and readiness's fix-it (the phone's settings), as before; quarantine (the phone's place in the pool) last", () => {
    expect(actionsOf(parts().features).map((a) => a.name)).toEqual(['recovery', 'charge', 'samsung-protection', 'readiness-fix', 'quarantine']);
  });

  it('a feature with an action takes its place among the others by what it acts on', () => {
    const base = parts();
    const features = [probe('late-link', 'link', []), ...base.features, probe('power-2', 'power', [])];
    expect(actionsOf(features).map((a) => a.name)).toEqual(['late-link', 'recovery', 'charge', 'power-2', 'samsung-protection', 'readiness-fix', 'quarantine']);
  });

  it('a command that changes nothing (`list`) looks once with the actions that read, on a runner that asks no cloud', async () => {
    const seen: Array<{ name: string; look: ActionLook }> = [];
    const base = parts();
    await readOnce({ ...base, features: [probe('reads', 'settings', seen, true), ...base.features, probe('writes', 'power', seen)] });
    expect(seen.map((s) => s.name)).toEqual(['reads']);
    expect(seen[0]!.look.verdict('udid-1')).toMatchObject({ kind: 'unknown' });
  });
});
