import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildActions, readOnce } from '../../src/agent/actions.js';
import { buildParts, type Parts } from '../../src/agent/build.js';
import type { ActionParts } from '../../src/actions/parts.js';
import { loadSettings } from '../../src/config/load.js';
import type { DeviceFeature } from '../../src/devices/feature.js';
import { captureLogger } from '../log/capture.js';

// The actions are the registered features' (src/agent/features.ts): the
// wiring builds each from the parts they share, in the order of what it acts
// on, and names none of them.

function parts(): Parts {
  const env = { DEVICE_AGENT_STATE_DIR: mkdtempSync(join(tmpdir(), 'actions-')) };
  return buildParts(loadSettings({ env }), env, captureLogger().logger, { nodeId: 'actions-test' });
}

/** A feature whose action says what it was built with and what ran. */
function probe(
  name: string,
  actsOn: 'link' | 'power' | 'settings',
  seen: Array<{ name: string; wiring: ActionParts; how: string }>,
): DeviceFeature<ActionParts> {
  return {
    name,
    action: {
      actsOn,
      build: (wiring) => (seen.push({ name, wiring, how: 'built' }), { name, start: () => undefined, stop: () => undefined }),
      readOnce: (wiring) => (seen.push({ name, wiring, how: 'read' }), Promise.resolve()),
    },
  };
}

describe('buildActions: the registered features, in the order of what they act on', () => {
  it("recovery (the link), charge control (the port's power), then Samsung protection and readiness's fix-it (the phone's settings), as before", () => {
    const { actions } = buildActions(parts(), () => undefined);
    expect(actions.map((a) => a.name)).toEqual(['recovery', 'charge', 'samsung-protection', 'readiness-fix']);
  });

  it('a feature with an action is built once with the shared parts, in its place among the others; with readOnce, it is only read', async () => {
    const seen: Array<{ name: string; wiring: ActionParts; how: string }> = [];
    const base = parts();
    const withProbes: Parts = { ...base, features: [probe('late-link', 'link', seen), ...base.features, probe('power-2', 'power', seen)] };
    const built = buildActions(withProbes, () => undefined);
    expect(built.actions.map((a) => a.name)).toEqual(['late-link', 'recovery', 'charge', 'power-2', 'samsung-protection', 'readiness-fix']);
    expect(seen.map((s) => `${s.name} ${s.how}`)).toEqual(['late-link built', 'power-2 built']);
    // One runner and one look-up for every action: the host's booking questions are bounded together.
    for (const s of seen) {
      expect(s.wiring.runner).toBe(built.runner);
      expect(s.wiring.mapping).toBe(base.mapping);
      expect(s.wiring.phones).toBe(base.control);
    }
    seen.length = 0;
    await readOnce(withProbes);
    expect(seen.map((s) => `${s.name} ${s.how}`)).toEqual(['late-link read', 'power-2 read']);
  });
});
