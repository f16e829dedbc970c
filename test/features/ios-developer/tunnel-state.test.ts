// Live, stale or no tunnel, from the daemons' listings over time and each
// phone's reconnects: the named cases (go-ios #712, #765, #670), then
// invariants over generated histories.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TunnelRecord } from '../../../src/features/ios-developer/daemons.js';
import { TunnelLedger, type DaemonNow, type DaemonRef } from '../../../src/features/ios-developer/tunnel-state.js';
import { propertyRuns } from '../../support/property-runs.js';

const UDID = '00008110-001C19A43420401E';
const GO: DaemonRef = { id: 'go-ios=http://127.0.0.1:60105', kind: 'go-ios', url: 'http://127.0.0.1:60105' };
const TD: DaemonRef = { id: 'tunneld=http://127.0.0.1:49151', kind: 'tunneld', url: 'http://127.0.0.1:49151' };
const t = (address: string, port = 51971, udid = UDID): TunnelRecord => ({ udid, address, port });
const up = (tunnels: TunnelRecord[], d = GO): DaemonNow => ({ ...d, state: 'up', tunnels });
const down = (d = GO): DaemonNow => ({ ...d, state: 'down', why: 'connection refused' });

describe('tunnel state', () => {
  it('a tunnel first listed while the phone is connected: live', () => {
    const ledger = new TunnelLedger();
    const daemons = [up([t('fdb2:7531:10d5::1')])];
    ledger.observe(daemons, [{ udid: UDID, epoch: 4 }]);
    expect(ledger.verdict({ udid: UDID, epoch: 4 }, daemons)).toMatchObject({ state: 'live', daemon: { kind: 'go-ios' } });
  });

  it('the phone reboots and the daemon goes on listing its old tunnel (#712, #765): stale from the first poll after it is back', () => {
    const ledger = new TunnelLedger();
    const old = [up([t('fdb2:7531:10d5::1')])];
    ledger.observe(old, [{ udid: UDID, epoch: 4 }]);
    // Away (usbmuxd lists it not), then back as a new record.
    ledger.observe(old, []);
    ledger.observe(old, [{ udid: UDID, epoch: 9 }]);
    expect(ledger.verdict({ udid: UDID, epoch: 9 }, old)).toMatchObject({ state: 'stale', why: 'before-reconnect', tunnel: { address: 'fdb2:7531:10d5::1' } });
    // Even before the next poll: the report right after it is back already says so.
    const fresh = new TunnelLedger();
    fresh.observe(old, [{ udid: UDID, epoch: 4 }]);
    expect(fresh.verdict({ udid: UDID, epoch: 9 }, old)).toMatchObject({ state: 'stale' });
  });

  it('the daemon makes a new tunnel after the reboot: live, the old one beside it counted stale (#712 listed both)', () => {
    const ledger = new TunnelLedger();
    ledger.observe([up([t('fdad:85c3:8dc6::1', 50338)])], [{ udid: UDID, epoch: 1 }]);
    const both = [up([t('fdad:85c3:8dc6::1', 50338), t('fdc5:cb62:1683::1', 64148)])];
    ledger.observe(both, [{ udid: UDID, epoch: 2 }]);
    expect(ledger.verdict({ udid: UDID, epoch: 2 }, both)).toMatchObject({ state: 'live', tunnel: { port: 64148 }, stale: 1 });
  });

  it('RSD port 0 (#670): stale even in the current connection', () => {
    const ledger = new TunnelLedger();
    const daemons = [up([t('fd7e:9c3b:2a10::1', 0)])];
    ledger.observe(daemons, [{ udid: UDID, epoch: 3 }]);
    expect(ledger.verdict({ udid: UDID, epoch: 3 }, daemons)).toMatchObject({ state: 'stale', why: 'no-port' });
  });

  it('a tunnel first seen while usbmuxd does not list the phone (Wi-Fi, or found at start): dated by the first connection it is seen with, never stale on no evidence', () => {
    const ledger = new TunnelLedger();
    const daemons = [up([t('fd56:2b3c:1e44::1', 60511)], TD)];
    ledger.observe(daemons, []);
    ledger.observe(daemons, [{ udid: UDID, epoch: 7 }]);
    expect(ledger.verdict({ udid: UDID, epoch: 7 }, daemons)).toMatchObject({ state: 'live', daemon: { kind: 'tunneld' } });
    // Asked before the next poll dates it (the phone's first answer, the agent's start): live as well, not stale and
    // then live (a verdict that flipped on no fact: the agent's first report called a healthy phone not ready).
    const early = new TunnelLedger();
    early.observe(daemons, []);
    expect(early.verdict({ udid: UDID, epoch: 7 }, daemons)).toMatchObject({ state: 'live' });
  });

  it('a dashless udid of tunneld (pymobiledevice3 #1388) is the same phone', () => {
    const ledger = new TunnelLedger();
    const daemons = [up([t('fd56:2b3c:1e44::1', 60511, UDID.replace('-', ''))], TD)];
    ledger.observe(daemons, [{ udid: UDID, epoch: 7 }]);
    expect(ledger.verdict({ udid: UDID, epoch: 7 }, daemons)).toMatchObject({ state: 'live' });
  });

  it('none listed by a daemon that answers; unknown when the one that answered is down; no daemon when none ever answered', () => {
    const ledger = new TunnelLedger();
    expect(ledger.verdict({ udid: UDID, epoch: 1 }, [down(), down(TD)])).toMatchObject({ state: 'no-daemon' });
    ledger.observe([up([]), down(TD)], [{ udid: UDID, epoch: 1 }]);
    expect(ledger.verdict({ udid: UDID, epoch: 1 }, [up([]), down(TD)])).toMatchObject({ state: 'none', daemons: [{ kind: 'go-ios' }] });
    expect(ledger.verdict({ udid: UDID, epoch: 1 }, [down(), down(TD)])).toEqual({
      state: 'unknown',
      daemons: [{ ...GO, state: 'down', why: 'connection refused' }],
    });
  });

  it('a daemon that restarts lists new tunnels: the old ones are forgotten, the new one live', () => {
    const ledger = new TunnelLedger();
    ledger.observe([up([t('fd01::1', 100)])], [{ udid: UDID, epoch: 1 }]);
    ledger.observe([down()], [{ udid: UDID, epoch: 1 }]);
    ledger.observe([up([t('fd02::1', 200)])], [{ udid: UDID, epoch: 1 }]);
    expect(ledger.verdict({ udid: UDID, epoch: 1 }, [up([t('fd02::1', 200)])])).toMatchObject({ state: 'live', tunnel: { port: 200 } });
  });

  it('on generated histories: stale exactly when every tunnel listed for the phone was first seen in an earlier connection of it (or has port 0)', () => {
    // A history: polls in which the phone is here or away (a return is a new connection), and the daemon lists the
    // old tunnel, a new one, or none.
    const poll = fc.record({ here: fc.boolean(), listing: fc.constantFrom('keep', 'new', 'none', 'down') });
    fc.assert(
      fc.property(fc.array(poll, { minLength: 1, maxLength: 40 }), (polls) => {
        const ledger = new TunnelLedger();
        let epoch = 0;
        let wasHere = false;
        let tunnels: TunnelRecord[] = [];
        let n = 0;
        // The model: the connection each listed tunnel was first seen in (undefined: seen only while away).
        const born = new Map<string, number | undefined>();
        let lastUp: { tunnels: TunnelRecord[]; born: Array<number | undefined> } | undefined;
        for (const p of polls) {
          if (p.here && !wasHere) epoch++;
          wasHere = p.here;
          if (p.listing === 'new') tunnels = [t(`fd${(++n).toString(16)}::1`, 1000 + n)];
          if (p.listing === 'none') tunnels = [];
          const daemons = p.listing === 'down' ? [down()] : [up(tunnels)];
          const phones = p.here ? [{ udid: UDID, epoch }] : [];
          if (p.listing !== 'down') {
            for (const k of [...born.keys()]) if (!tunnels.some((x) => x.address === k)) born.delete(k);
            for (const x of tunnels) if (!born.has(x.address) || born.get(x.address) === undefined) born.set(x.address, p.here ? epoch : undefined);
          }
          // The phone's answer is judged at once, before this poll: from the last listing, an undated tunnel dated now.
          if (p.here && lastUp) {
            const before = ledger.verdict({ udid: UDID, epoch }, [up(lastUp.tunnels)]).state;
            const dated = lastUp.born.map((b) => b ?? epoch);
            if (before !== (dated.length === 0 ? 'none' : dated.includes(epoch) ? 'live' : 'stale')) return false;
          }
          ledger.observe(daemons, phones);
          if (p.listing !== 'down') lastUp = { tunnels, born: tunnels.map((x) => born.get(x.address)) };
          if (!p.here || p.listing === 'down') continue;
          const v = ledger.verdict({ udid: UDID, epoch }, daemons);
          const listed = tunnels.map((x) => born.get(x.address));
          const expected = listed.length === 0 ? 'none' : listed.some((b) => b === epoch) ? 'live' : 'stale';
          if (v.state !== expected) return false;
        }
        return true;
      }),
      propertyRuns(900),
    );
  });
});
