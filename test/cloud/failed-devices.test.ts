import { describe, expect, it } from 'vitest';
import { adviceFor, FailedDevicePolicy } from '../../src/cloud/failed-devices.js';

const missing = 'missing required capability: platformVersion';

describe('FailedDevicePolicy', () => {
  it('reports a (udid, message) pair once, and again only when the message changes', () => {
    const policy = new FailedDevicePolicy();
    expect(policy.record(['A', 'B'], [{ udid: 'B', message: missing }], 0)).toEqual({ newlyFailed: [{ udid: 'B', message: missing }], recovered: [] });
    expect(policy.record(['A', 'B'], [{ udid: 'B', message: missing }], 1_000).newlyFailed).toEqual([]);
    expect(policy.record(['A', 'B'], [{ udid: 'B', message: 'quota exceeded' }], 2_000).newlyFailed).toEqual([{ udid: 'B', message: 'quota exceeded' }]);
    expect(policy.current()).toEqual([{ udid: 'B', message: 'quota exceeded', since: 0, attempts: 3, nextRetryAt: 2_000 + 120_000 }]);
  });

  it('reports a device accepted after failing as recovered, once', () => {
    const policy = new FailedDevicePolicy();
    policy.record(['A'], [{ udid: 'A', message: missing }], 0);
    expect(policy.record(['A'], [], 10).recovered).toEqual(['A']);
    expect(policy.record(['A'], [], 20).recovered).toEqual([]);
    expect(policy.current()).toEqual([]);
    // After recovering, the same failure is news again.
    expect(policy.record(['A'], [{ udid: 'A', message: missing }], 30).newlyFailed).toHaveLength(1);
  });

  it('keeps a failed device that was not in this report', () => {
    const policy = new FailedDevicePolicy();
    policy.record(['A'], [{ udid: 'A', message: missing }], 0);
    expect(policy.record(['B'], [], 10).recovered).toEqual([]);
    expect(policy.current().map((e) => e.udid)).toEqual(['A']);
  });

  it('backs off per device, doubling up to the cap', () => {
    const policy = new FailedDevicePolicy({ firstMs: 30_000, maxMs: 100_000 });
    const retryTimes: number[] = [];
    for (let i = 0; i < 4; i++) {
      policy.record(['A'], [{ udid: 'A', message: missing }], 0);
      retryTimes.push(policy.nextRetryAt()!);
    }
    expect(retryTimes).toEqual([30_000, 60_000, 100_000, 100_000]);
  });

  it('lists the devices due for a retry and the earliest retry time', () => {
    const policy = new FailedDevicePolicy({ firstMs: 1_000, maxMs: 30 * 60_000 });
    policy.record(['A', 'B'], [{ udid: 'A', message: missing }], 0);
    policy.record(
      ['A', 'B'],
      [
        { udid: 'A', message: missing },
        { udid: 'B', message: missing },
      ],
      500,
    );
    // A: second refusal at 500 -> 500 + 2000; B: first refusal at 500 -> 1500.
    expect(policy.nextRetryAt()).toBe(1_500);
    expect(policy.dueForRetry(1_499)).toEqual([]);
    expect(policy.dueForRetry(1_500)).toEqual(['B']);
    expect(policy.dueForRetry(2_500).sort()).toEqual(['A', 'B']);
  });

  it('counts a udid listed twice in one answer once', () => {
    const policy = new FailedDevicePolicy();
    const result = policy.record(
      ['A'],
      [
        { udid: 'A', message: missing },
        { udid: 'A', message: missing },
      ],
      0,
    );
    expect(result.newlyFailed).toHaveLength(1);
    expect(policy.current()[0]?.attempts).toBe(1);
  });

  it('keeps only the devices still reported', () => {
    const policy = new FailedDevicePolicy();
    policy.record(
      ['A', 'B'],
      [
        { udid: 'A', message: missing },
        { udid: 'B', message: missing },
      ],
      0,
    );
    policy.retain(new Set(['B', 'C']));
    expect(policy.current().map((d) => d.udid)).toEqual(['B']);
    policy.retain(new Set());
    expect(policy.nextRetryAt()).toBeUndefined();
  });

  it('moves a retry that has started one backoff step ahead, never leaving it in the past', () => {
    const policy = new FailedDevicePolicy({ firstMs: 1_000, maxMs: 30 * 60_000 });
    policy.record(['A'], [{ udid: 'A', message: missing }], 0);
    policy.record(['A'], [{ udid: 'A', message: missing }], 1_000);
    expect(policy.nextRetryAt()).toBe(3_000);
    // The retry report starts late (the cloud was down) and is never delivered.
    policy.defer(['A'], 50_000);
    expect(policy.nextRetryAt()).toBe(52_000);
    expect(policy.dueForRetry(50_000)).toEqual([]);
  });
});

describe('adviceFor', () => {
  it('gives a specific hint for known kinds of reasons', () => {
    expect(adviceFor('missing required capability: platformVersion')).toMatch(/lacks a field/);
    expect(adviceFor('Device is already registered by another node')).toMatch(/registered elsewhere/);
    expect(adviceFor('Device limit exceeded for organization')).toMatch(/limit or license/);
    expect(adviceFor('Permission denied')).toMatch(/permission/);
  });

  it('falls back to asking the cloud administrator', () => {
    expect(adviceFor('Internal error 0x1f')).toMatch(/cloud administrator/);
    expect(adviceFor('')).toMatch(/cloud administrator/);
  });
});
