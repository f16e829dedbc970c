// The tunnel daemons watched over real HTTP, against the doubles that answer
// what go-ios's agent and pymobiledevice3's tunneld answer
// (test/sim-ios/tunnel-daemons.ts): up, down, refusing, garbage and silent,
// each change said once, a daemon never seen up only at debug.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonWatch } from '../../../src/features/ios-developer/watch.js';
import { systemClock } from '../../../src/util/clock.js';
import { captureLogger } from '../../log/capture.js';
import { GoIosAgentDouble, TunneldDouble } from '../../sim-ios/tunnel-daemons.js';

const UDID = '00008110-001C19A43420401E';

describe('watching the tunnel daemons', () => {
  const go = new GoIosAgentDouble();
  const td = new TunneldDouble();
  beforeAll(async () => {
    await go.start();
    await td.start();
  });
  afterAll(async () => {
    await go.stop();
    await td.stop();
  });

  it("each daemon's listing read; a fault said once when it starts and once when it ends, naming what to do", async () => {
    const log = captureLogger('debug');
    const tunnel = go.newTunnel(UDID);
    td.newTunnel('00008101001D49A20E38003A');
    const watch = new DaemonWatch({
      daemons: [
        { id: 'go', kind: 'go-ios', url: go.url },
        { id: 'td', kind: 'tunneld', url: td.url },
      ],
      pollMs: 60_000,
      clock: systemClock,
      logger: log.logger,
      phones: () => [{ udid: UDID, epoch: 1 }],
    });
    await watch.poll();
    expect(watch.daemons()).toMatchObject([
      { id: 'go', state: 'up', tunnels: [{ udid: UDID, address: tunnel.address, port: tunnel.port, userspace: false }] },
      { id: 'td', state: 'up', tunnels: [{ udid: '00008101001D49A20E38003A' }] },
    ]);
    expect(watch.ledger.verdict({ udid: UDID, epoch: 1 }, watch.daemons())).toMatchObject({ state: 'live' });

    go.fault = 'refusing';
    await watch.poll();
    await watch.poll();
    expect(watch.daemons()[0]).toMatchObject({ state: 'refusing', why: 'HTTP 500: "failed to list tunnels: internal error"' });
    go.fault = 'garbage';
    await watch.poll();
    expect(watch.daemons()[0]).toMatchObject({ state: 'garbage', why: 'its listing is not JSON' });
    go.fault = undefined;
    await go.stop();
    await watch.poll();
    expect(watch.daemons()[0]).toMatchObject({ state: 'down', why: 'connection refused' });
    expect(watch.ledger.verdict({ udid: UDID, epoch: 1 }, [watch.daemons()[0]!])).toMatchObject({ state: 'unknown' });
    await go.start();
    go.fault = 'hang';
    await watch.poll();
    expect(watch.daemons()[0]).toMatchObject({ state: 'down', why: 'no answer within 2000 ms' });
    go.fault = undefined;
    await watch.poll();
    expect(watch.daemons()[0]).toMatchObject({ state: 'up' });

    const said = log
      .lines()
      .filter((l) => l.level !== 'debug')
      .map((l) => String(l.msg));
    expect(said).toEqual([
      expect.stringMatching(/^go-ios's tunnel agent at http:\/\/127\.0\.0\.1:\d+ refuses its listing \(HTTP 500: .*\): restart it/),
      expect.stringMatching(/answers its listing with what it never writes \(its listing is not JSON\)/),
      expect.stringMatching(/does not answer \(connection refused\): the iPhones' iOS 17 tunnels it kept are unknown; restart it: `ios tunnel start`/),
      expect.stringMatching(/does not answer \(no answer within 2000 ms\)/),
      expect.stringMatching(/^go-ios's tunnel agent at .* answers again/),
    ]);
  }, 20_000);

  it('a daemon that closes at once, cuts its listing mid-stream, floods it, or answers slowly: down, garbage, or read', async () => {
    const log = captureLogger('debug');
    go.tunnels = [];
    go.newTunnel(UDID);
    const watch = new DaemonWatch({
      daemons: [{ id: 'go', kind: 'go-ios', url: go.url }],
      pollMs: 60_000,
      clock: systemClock,
      logger: log.logger,
      phones: () => [],
    });
    const stateAfter = async (fault: typeof go.fault) => {
      go.fault = fault;
      await watch.poll();
      return watch.daemons()[0]!;
    };
    expect(await stateAfter('slow')).toMatchObject({ state: 'up', tunnels: [{ udid: UDID }] });
    expect(await stateAfter('close')).toMatchObject({ state: 'down', why: 'socket hang up' });
    expect(await stateAfter('cut')).toMatchObject({ state: 'down', why: 'aborted' });
    expect(await stateAfter('flood')).toMatchObject({ state: 'down', why: 'answered more than 1048576 bytes' });
    expect(await stateAfter(undefined)).toMatchObject({ state: 'up' });
    go.fault = undefined;
  }, 20_000);

  it('a daemon never seen answering is a debug line, not a warning: a lab runs one of the two', async () => {
    const log = captureLogger('debug');
    const watch = new DaemonWatch({
      daemons: [{ id: 'none', kind: 'tunneld', url: 'http://127.0.0.1:9' }],
      pollMs: 60_000,
      clock: systemClock,
      logger: log.logger,
      phones: () => [],
    });
    await watch.poll();
    expect(watch.daemons()[0]).toMatchObject({ state: 'down' });
    expect(log.lines().filter((l) => l.level !== 'debug')).toEqual([]);
    expect(watch.ledger.verdict({ udid: UDID, epoch: 1 }, watch.daemons())).toMatchObject({ state: 'no-daemon' });
  });
});
