import { describe, expect, it } from 'vitest';
import type { DeviceRow } from '../../src/devices/feature-view.js';
import { openIncident, phonePage, rackPage, troubleOf, type PageHost } from '../../src/status/page-data.js';

const host: PageHost = { node: 'lab-7', agentVersion: '1.0', healthy: true, problems: [] };
const row = (udid: string, more: Partial<DeviceRow> = {}): DeviceRow => ({
  udid,
  serial: udid,
  state: 'device',
  status: 'AVAILABLE',
  platform: 'Android',
  up: true,
  ...more,
});
const inService = { state: 'in_service', since: 1_000 };

describe('the rack as the page lays it out', () => {
  it('by USB bus, hub and port in their natural order, the hub by its name; the phones on no port by network and platform', () => {
    const rows = [
      row('A', { usb: '1-1.4.10' }),
      row('B', { usb: '2-1' }),
      row('C', { usb: '1-1.4.2' }),
      row('D', { serial: '10.0.0.7:5555' }),
      row('E', { platform: 'iOS' }),
      row('F', { usb: '1-1.3.1' }),
    ];
    const page = rackPage(
      rows,
      rows.map(() => ({})),
      new Map([['1-1.4', 'rack B, shelf 2']]),
      host,
    );
    expect(page.rack).toEqual([
      {
        bus: 1,
        hubs: [
          { hub: '1-1.3', ports: [{ port: '1-1.3.1', rows: [5] }] },
          {
            hub: '1-1.4',
            name: 'rack B, shelf 2',
            ports: [
              { port: '1-1.4.2', rows: [2] },
              { port: '1-1.4.10', rows: [0] },
            ],
          },
        ],
      },
      { bus: 2, hubs: [{ hub: 'usb2', ports: [{ port: '2-1', rows: [1] }] }] },
    ]);
    expect(page.groups).toEqual([
      { title: 'network phones', rows: [3] },
      { title: 'iOS phones', rows: [4] },
    ]);
    // The rows as given: list --json's.
    expect(page.rows).toBe(rows);
  });

  it('the phones that need someone first, the worst first: out of service, quarantined or in an open incident, then not ready, unwell or worn', () => {
    const rows = [
      row('OK'),
      row('NOTREADY', { features: { readiness: 'not ready: stayAwake' } }),
      row('DOWN', { up: false, state: 'offline' }),
      row('WORN', { wear: { daysLeft: 30 } }),
      row('FINE', { wear: { daysLeft: 31 }, problems: [] }),
      row('QUAR'),
      row('SICK', { problems: ['battery_hot'] }),
      row('INCIDENT'),
    ];
    const more = rows.map((r) =>
      r.udid === 'QUAR'
        ? { quarantine: { until: 2, release: 'device-agent quarantine release QUAR' } }
        : r.udid === 'INCIDENT'
          ? { inService: { state: 'needs_person', since: 5_000 }, incidents: [{ at: 5_000, kind: 'person-needed' }] }
          : {},
    );
    const page = rackPage(rows, more, new Map(), host);
    expect(page.attention.map((i) => rows[i]!.udid)).toEqual(['DOWN', 'INCIDENT', 'QUAR', 'NOTREADY', 'SICK', 'WORN']);
    expect(page.trouble).toEqual([0, 1, 2, 1, 0, 2, 1, 2]);
  });

  it('an incident is open while the phone has been out of service since it began, to the second its file name gives', () => {
    const incidents = [{ at: 10_000, kind: 'quarantine' }];
    expect(openIncident({ incidents, inService: { state: 'quarantined', since: 10_999 } })).toEqual(incidents[0]);
    expect(openIncident({ incidents, inService: { state: 'quarantined', since: 11_000 } })).toBeUndefined();
    expect(openIncident({ incidents, inService })).toBeUndefined();
    expect(openIncident({ incidents })).toBeUndefined();
    expect(troubleOf(row('X'), { incidents, inService: { state: 'in_transition', since: 3_000 } })).toBe(2);
  });
});

describe("a phone's page", () => {
  it('says what to do: the quarantine and the command that ends it, the open incident, its message, its wear; nothing when it is in service', () => {
    const quarantined = phonePage(
      row('127.0.0.1:5555', {
        udid: 'Q1',
        message: 'stay awake is off: adb shell settings put global stay_on_while_plugged_in 7',
        wear: { daysLeft: 12, reason: 'battery' },
      }),
      {
        quarantine: { until: Date.UTC(2026, 0, 5, 12, 20), reason: '3 failures in 10 min', release: 'device-agent quarantine release 127.0.0.1:5555' },
        inService: { state: 'quarantined', since: Date.UTC(2026, 0, 5, 12, 0) },
        incidents: [{ at: Date.UTC(2026, 0, 5, 12, 0), kind: 'quarantine' }],
      },
      host,
    );
    expect(quarantined.todo).toEqual([
      'It is quarantined until 12:20Z (3 failures in 10 min) and comes back on its own once a check passes after then. To put it back now: device-agent quarantine release 127.0.0.1:5555',
      'An incident (quarantine) began at 12:00Z: device-agent incidents 127.0.0.1:5555 shows what happened before it',
      'Its message says what is wrong and what to do: stay awake is off: adb shell settings put global stay_on_while_plugged_in 7',
      'Wear: battery in about 12 days; plan to replace it',
    ]);
    expect(phonePage(row('A'), { inService }, host).todo).toEqual(['Nothing: it is in service.']);
    expect(phonePage(row('B', { up: false, state: 'unauthorized' }), {}, host).todo).toEqual(['Nothing the agent knows of yet: it is unauthorized.']);
  });
});
