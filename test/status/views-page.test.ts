import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../src/cloud/types.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { AgentStats } from '../../src/stats/agent-stats.js';
import type { PhonePage, RackPage } from '../../src/status/page-data.js';
import { StatusViews } from '../../src/status/views.js';
import { VirtualTime } from '../support/virtual-time.js';

const phone = (udid: string): DeviceInfo => ({
  udid,
  serialNumber: udid,
  state: 'device',
  status: 'AVAILABLE',
  platformName: 'ANDROID',
  isAndroid: true,
  isIos: false,
});

function views() {
  const time = new VirtualTime();
  const report = { lastDevices: [phone('A1'), phone('B2')] as readonly DeviceInfo[], failedDevices: () => [], periodMs: 60_000 };
  const stats = new AgentStats();
  const v = new StatusViews({
    nodeId: 'lab-7',
    settings: { jitterSeconds: 0, requestTimeoutSeconds: 10 },
    stats,
    registry: new DeviceRegistry(),
    sources: [],
    report,
    hubPorts: new Map(),
    features: [],
    clock: time.clock(),
  });
  return { v, time, report, stats };
}

describe("the status page's data in the views", () => {
  it('its version changes with each report that ends, delivered or not, and with the minute, and with nothing else', () => {
    const { v, time, stats } = views();
    const first = v.pageVersion();
    time.advance(10_000);
    expect(v.pageVersion()).toBe(first);
    stats.reportsSent++;
    const reported = v.pageVersion();
    expect(reported).not.toBe(first);
    stats.reportsFailed++;
    const failed = v.pageVersion();
    expect(failed).not.toBe(reported);
    time.advance(60_000);
    expect(v.pageVersion()).not.toBe(failed);
  });

  it("the rack holds every row of the last report; a phone's page its own row, none for a udid the report does not hold", () => {
    const { v } = views();
    expect((v.page() as RackPage).rows.map((r) => r.udid)).toEqual(['A1', 'B2']);
    expect((v.page('B2') as PhonePage).row.udid).toBe('B2');
    expect(v.page('C3')).toBeUndefined();
  });
});
