// What is said of an iPhone's developer services: the support table first,
// then its tunnel, each with what to do; nothing before iOS 17.
import { describe, expect, it } from 'vitest';
import { judgePhone } from '../../../src/features/ios-developer/judge.js';
import type { DaemonRef } from '../../../src/features/ios-developer/tunnel-state.js';

const UDID = '00008110-001C19A43420401E';
const GO: DaemonRef = { id: 'go', kind: 'go-ios', url: 'http://127.0.0.1:60105' };
const TD: DaemonRef = { id: 'td', kind: 'tunneld', url: 'http://127.0.0.1:49151' };
const supported = { kind: 'supported' } as const;
const tunnel = { udid: UDID, address: 'fdb2:7531:10d5::1', port: 51971 };

describe('judging an iPhone', () => {
  it('before iOS 17, or a version that does not read: nothing said', () => {
    expect(judgePhone(UDID, '16.7.2', supported, { state: 'none', daemons: [GO] })).toBeUndefined();
    expect(judgePhone(UDID, undefined, supported, { state: 'none', daemons: [GO] })).toBeUndefined();
  });

  it('live: ready, nothing in the message', () => {
    expect(judgePhone(UDID, '18.4.1', supported, { state: 'live', daemon: GO, tunnel, stale: 0 })).toEqual({ cell: 'live', state: 'live', notReady: false });
    expect(judgePhone(UDID, '18.4.1', supported, { state: 'live', daemon: GO, tunnel, stale: 1 })?.cell).toBe('live (+1 stale)');
  });

  it("stale: not ready, named with the daemon's own commands to drop it", () => {
    const go = judgePhone(UDID, '18.4.1', supported, { state: 'stale', daemon: GO, tunnel, why: 'before-reconnect' });
    expect(go).toMatchObject({ cell: 'stale', notReady: true });
    expect(go?.note).toContain(`curl -X DELETE http://127.0.0.1:60105/tunnel/${UDID}`);
    expect(go?.note).toContain('"fdb2:7531:10d5::1" port 51971');
    const td = judgePhone(UDID, '17.0', supported, { state: 'stale', daemon: TD, tunnel, why: 'no-port' });
    expect(td?.note).toContain(`curl 'http://127.0.0.1:49151/cancel?udid=${UDID}'`);
    expect(td?.note).toContain('RSD port 0');
  });

  it('a udid that does not read as one never goes into a command', () => {
    const note = judgePhone('x; rm -rf /', '18.0', supported, { state: 'stale', daemon: GO, tunnel, why: 'before-reconnect' })?.note;
    expect(note).not.toContain('rm -rf');
    expect(note).toContain('/tunnel/UDID');
  });

  it('none, unknown (the daemon down), no daemon: not ready, each with what to do', () => {
    expect(judgePhone(UDID, '17.4.1', supported, { state: 'none', daemons: [GO] })).toMatchObject({
      cell: 'none',
      notReady: true,
      note: expect.stringContaining("no iOS 17 tunnel for it on go-ios's tunnel agent"),
    });
    expect(judgePhone(UDID, '17.4.1', supported, { state: 'unknown', daemons: [{ ...GO, state: 'down', why: 'connection refused' }] })?.note).toMatch(
      /tunnel is unknown: go-ios's tunnel agent at http:\/\/127\.0\.0\.1:60105 does not answer \(connection refused\): restart it \(`ios tunnel start`/,
    );
    expect(judgePhone(UDID, '17.4.1', supported, { state: 'no-daemon', daemons: [GO, TD] })?.note).toMatch(
      /no iOS 17 tunnel daemon answers on this host .*start one: `ios tunnel start`.* or `pymobiledevice3 remote tunneld`/,
    );
  });

  it('not supported on this host: said with what to install, whatever the tunnel', () => {
    const j = judgePhone(UDID, '17.5', { kind: 'not-supported', install: 'go-ios 1.0.122 or later' }, { state: 'no-daemon', daemons: [GO] });
    expect(j).toEqual({
      cell: 'not supported',
      state: 'not-supported',
      notReady: true,
      note: "not supported on this host: iOS 17.5 needs an iOS 17 tunnel daemon, and this host's tools do not give one for it: install go-ios 1.0.122 or later",
    });
  });
});
