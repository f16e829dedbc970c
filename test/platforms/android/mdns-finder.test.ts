// The mdns finder's talk with the adb server: asked only on a host with
// network devices, adb 29's refusal said once and not asked again for the
// hour, a flood said once, a refused device disconnected.
import { describe, expect, it } from 'vitest';
import { AdbCommandError, AdbUnreachableError } from '../../../src/platforms/android/adb/errors.js';
import { MdnsFinder } from '../../../src/platforms/android/mdns-finder.js';
import { RETRY_MS } from '../../../src/platforms/android/mdns-follow.js';
import { captureLogger } from '../../log/capture.js';

type Rec = { serial: string; state: string; udid?: string };

function finder(answers: () => string, records: () => Rec[], connected = (a: string) => Promise.resolve(`connected to ${a}`)) {
  const log = captureLogger('info');
  let now = 0;
  const calls: string[] = [];
  const f = new MdnsFinder({
    adb: {
      mdnsServices: async () => {
        calls.push('mdns');
        return answers();
      },
      connect: (a: string) => {
        calls.push(`connect ${a}`);
        return connected(a);
      },
      disconnect: async (a: string) => {
        // With the warnings said by then: the line that says "disconnected" must come after it.
        calls.push(`disconnect ${a} (${log.lines().filter((l) => l.level === 'warn').length} warnings before)`);
        return `disconnected ${a}`;
      },
    },
    registry: { list: () => records() as never },
    logger: log.logger,
    clock: { monotonic: () => now },
  });
  return { f, log, calls, advance: (ms: number) => (now += ms) };
}

describe('the mdns finder', () => {
  it('a host of USB phones only asks nothing', async () => {
    const { f, calls } = finder(
      () => '',
      () => [{ serial: 'R5CY743GDFY', state: 'device', udid: 'R5CY743GDFY' }],
    );
    await f.tick();
    expect(calls).toEqual([]);
  });

  it('adb 29 (FAIL unknown host service): said once, at info, and not asked again for the hour', async () => {
    const { f, log, calls, advance } = finder(
      () => {
        throw new AdbCommandError('mdns services', 'unknown host service');
      },
      () => [{ serial: '192.168.1.10:37001', state: 'device', udid: 'U1' }],
    );
    await f.tick();
    advance(60_000);
    await f.tick();
    expect(calls).toEqual(['mdns']);
    expect(log.lines().map((l) => [l.level, l.msg])).toEqual([
      [
        'info',
        expect.stringMatching(
          /does not list mdns services \("unknown host service": adb 29 and before, such as Debian 12's adb package\): nothing to follow for a phone on adb tcpip, whose port stays; wireless debugging .* needs adb 30 or later$/,
        ),
      ],
    ]);
    advance(3_600_000);
    await f.tick();
    expect(calls).toEqual(['mdns', 'mdns']);
    expect(log.lines()).toHaveLength(1);
  });

  it('an answer that fails (a connection closed at once or cut mid-answer) or never comes: no line above debug, one look in flight at a time, asked again at the next', async () => {
    const log = captureLogger('info');
    let answer: () => Promise<string> = () => Promise.reject(new Error('Premature end of stream, needed 4 more bytes'));
    let asked = 0;
    const f = new MdnsFinder({
      adb: {
        mdnsServices: () => {
          asked++;
          return answer();
        },
        connect: async () => '',
        disconnect: async () => '',
      },
      registry: { list: () => [{ serial: '192.168.1.10:37001', state: 'device', udid: 'U1' }] as never },
      logger: log.logger,
      clock: { monotonic: () => 0 },
    });
    await f.tick();
    answer = () => new Promise<string>(() => {});
    const hung = f.tick();
    void f.tick();
    void f.tick();
    expect(asked).toBe(2);
    expect(hung).toBeInstanceOf(Promise);
    expect(log.lines()).toEqual([]);
  });

  it('a flood of announcements: read up to the bound, said once', async () => {
    const flood = 'adb-X-abcdef\t_adb-tls-connect._tcp\t10.0.0.1:40000\n'.repeat(1500);
    const { f, log } = finder(
      () => flood,
      () => [{ serial: '192.168.1.10:37001', state: 'device', udid: 'U1' }],
    );
    await f.tick();
    await f.tick();
    expect(
      log
        .lines()
        .filter((l) => l.level === 'warn')
        .map((l) => l.msg),
    ).toEqual([expect.stringMatching(/more than 1000 services; the first 1000 are read/)]);
  });

  it('a lost phone followed, then the device there says it is another: disconnected, said once', async () => {
    let listing = 'adb-U1-QXjCrW\t_adb-tls-connect._tcp\t192.168.1.10:37001\n';
    let records: Rec[] = [{ serial: '192.168.1.10:37001', state: 'device', udid: 'U1' }];
    const { f, calls, log } = finder(
      () => listing,
      () => records,
    );
    await f.tick();
    listing = 'adb-U1-QXjCrW\t_adb-tls-connect._tcp\t10.0.0.66:5555\n';
    records = [];
    await f.tick();
    records = [{ serial: '10.0.0.66:5555', state: 'device', udid: 'EVIL' }];
    await f.tick();
    expect(calls.filter((c) => c !== 'mdns')).toEqual(['connect 10.0.0.66:5555', 'disconnect 10.0.0.66:5555 (0 warnings before)']);
    expect(
      log
        .lines()
        .filter((l) => l.level === 'warn')
        .map((l) => l.msg),
    ).toEqual([expect.stringMatching(/says it is "EVIL": a clone or a forged announcement, which takes nothing of U1/)]);
  });

  it("a connect whose answer never came (its deadline on a loaded host) while adb connected the address: the device there is still refused; adb's refusal is tried again later", async () => {
    let listing = 'adb-U1-QXjCrW\t_adb-tls-connect._tcp\t192.168.1.10:37001\n';
    let records: Rec[] = [{ serial: '192.168.1.10:37001', state: 'device', udid: 'U1' }];
    let connect = () => Promise.reject(new AdbUnreachableError('tcp:127.0.0.1:5037', 'ETIMEDOUT', '10000 ms'));
    const { f, calls, log, advance } = finder(
      () => listing,
      () => records,
      () => connect(),
    );
    await f.tick();
    listing = 'adb-U1-QXjCrW\t_adb-tls-connect._tcp\t10.0.0.66:5555\n';
    records = [];
    await f.tick();
    records = [{ serial: '10.0.0.66:5555', state: 'device', udid: 'EVIL' }];
    await f.tick();
    expect(calls.filter((c) => c !== 'mdns')).toEqual(['connect 10.0.0.66:5555', 'disconnect 10.0.0.66:5555 (0 warnings before)']);
    expect(log.lines().filter((l) => l.level === 'warn')).toHaveLength(1);

    // Refused by adb (the phone not listening yet) at another address: not followed there until the retry.
    calls.length = 0;
    connect = () => Promise.reject(new AdbCommandError('connect 10.0.0.7:5555', "failed to connect to '10.0.0.7:5555': Connection refused"));
    listing = 'adb-U1-QXjCrW\t_adb-tls-connect._tcp\t10.0.0.7:5555\n';
    records = [];
    await f.tick();
    advance(RETRY_MS - 1);
    await f.tick();
    advance(1);
    await f.tick();
    expect(calls.filter((c) => c !== 'mdns')).toEqual(['connect 10.0.0.7:5555', 'connect 10.0.0.7:5555']);
  });
});
