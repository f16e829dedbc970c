import { describe, expect, it } from 'vitest';
import { Agent, LIFECYCLE_MS } from '../../src/agent/agent.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import type { DeviceFeature } from '../../src/devices/feature.js';
import { VirtualTime } from '../support/virtual-time.js';
import { captureLogger } from '../log/capture.js';

// The daemon awaits the features' starts and stops, and the actions': the
// hooks that may hang. One that throws or hangs is said, and the daemon
// starts (and stops) the others, within the deadline on the injected clock.

const never = (): Promise<never> => new Promise<never>(() => undefined);

function bed() {
  const time = new VirtualTime();
  const { logger, lines } = captureLogger();
  const done: string[] = [];
  const feature = (name: string, start: () => unknown, stop: () => unknown): DeviceFeature => ({ name, start, stop }) as DeviceFeature;
  const agent = new Agent({
    nodeId: 'n1',
    settings: { schedule: '* * * * *', jitterSeconds: 0, shutdownTimeoutSeconds: 1 },
    logger,
    clock: time.clock(),
    registry: new DeviceRegistry(),
    flaps: { changed: () => undefined, stop: () => undefined },
    sources: [],
    actions: [{ name: 'hung-action', start: never, stop: () => void done.push('action stopped') }],
    runner: { devicesChanged: () => undefined },
    loop: { start: () => void done.push('schedule'), stop: () => undefined, settle: async () => undefined } as never,
    views: { noteStart: () => undefined } as never,
    status: { start: async () => void done.push('status'), stop: async () => void done.push('status stopped') } as never,
    features: [
      feature(
        'throws',
        () => {
          throw new Error('boom');
        },
        () => Promise.reject(new Error('no')),
      ),
      feature('hangs', never, never),
      feature(
        'fine',
        () => void done.push('fine'),
        () => void done.push('fine stopped'),
      ),
    ],
  });
  /** Runs virtual time on until the promise settles, at most `ms`; returns how long it took. */
  const within = async (p: Promise<unknown>, ms: number): Promise<number> => {
    let settled = false;
    void p.then(() => (settled = true));
    const from = time.now;
    while (!settled && time.now - from <= ms) {
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      if (!settled) time.advance(100);
    }
    expect(settled).toBe(true);
    return time.now - from;
  };
  const said = () =>
    lines()
      .filter((l) => l.level === 'error')
      .map((l) => String(l.msg));
  return { agent, done, within, said, lines };
}

describe("the daemon's start and stop of the features and the actions", () => {
  it('a feature whose start throws and one that hangs, an action whose start hangs: each said, the others started, within the deadline each', async () => {
    const b = bed();
    const took = await b.within(b.agent.start(), 4 * LIFECYCLE_MS);
    expect(took).toBeLessThanOrEqual(2 * LIFECYCLE_MS + 200);
    expect(b.done).toEqual(['status', 'fine', 'schedule']);
    expect(b.said()).toEqual([
      'throws: its start failed (Error: boom); the agent goes on with the others. A bug in the agent: report it',
      `hangs: its start did not end within ${LIFECYCLE_MS / 1000} s; the agent goes on with the others. A bug in the agent: report it`,
      `hung-action: its start did not end within ${LIFECYCLE_MS / 1000} s; the agent goes on with the others. A bug in the agent: report it`,
    ]);
    expect(b.lines().some((l) => l.msg === 'device-agent started')).toBe(true);

    await b.within(b.agent.stop(), 4 * LIFECYCLE_MS);
    expect(b.done).toEqual(['status', 'fine', 'schedule', 'action stopped', 'fine stopped', 'status stopped']);
    expect(b.said().slice(3)).toEqual([
      `hangs: its stop did not end within ${LIFECYCLE_MS / 1000} s; the agent goes on with the others. A bug in the agent: report it`,
      'throws: its stop failed (Error: no); the agent goes on with the others. A bug in the agent: report it',
    ]);
  });
});
