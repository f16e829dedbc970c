// Asks the adb server what mdns announces (adb 30 and later) and carries out
// what mdns-follow.ts decides: connects a lost wireless-debugging phone's new
// address, disconnects an address whose device turned out to be another.
// Run with each collect, and only on a host with network devices or names
// learned: a host of USB phones asks nothing. Each thing said once.
import type { DeviceRegistry } from '../../devices/registry.js';
import type { Logger } from '../../log/logger.js';
import type { Clock } from '../../util/clock.js';
import type { AdbClient } from './adb/client.js';
import { AdbCommandError } from './adb/errors.js';
import { MAX_LINES, parseMdnsServices } from './adb/mdns.js';
import { MdnsFollow, REFUSE_MS } from './mdns-follow.js';

const PLATFORM = 'android';
const READY = 'device';
/** An adb without mdns is asked again this much later (an upgrade, or another server behind the address). */
const UNSUPPORTED_MS = 3_600_000;
const IPV4_PORT = /^\d{1,3}(\.\d{1,3}){3}:\d{1,5}$/;

interface MdnsFinderOptions {
  adb: Pick<AdbClient, 'mdnsServices' | 'connect' | 'disconnect'>;
  registry: Pick<DeviceRegistry, 'list'>;
  logger: Logger;
  clock: Pick<Clock, 'monotonic'>;
}

export class MdnsFinder {
  private readonly follow = new MdnsFollow();
  private unsupportedUntil = 0;
  private running: Promise<void> | undefined;
  private readonly said = new Set<string>();

  constructor(private readonly o: MdnsFinderOptions) {}

  /** One look at mdns; a look in flight is not started twice. */
  tick() {
    this.running ??= this.look().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async look() {
    const { logger, clock } = this.o;
    const records = this.o.registry
      .list(PLATFORM)
      .filter((r) => IPV4_PORT.test(r.serial))
      .map((r) => ({ address: r.serial, ready: r.state === READY, udid: r.udid }));
    const now = clock.monotonic();
    if ((records.length === 0 && this.follow.idle) || now < this.unsupportedUntil) return;
    let text: string;
    try {
      text = await this.o.adb.mdnsServices();
    } catch (err) {
      if (err instanceof AdbCommandError) {
        this.unsupportedUntil = now + UNSUPPORTED_MS;
        this.once(
          'unsupported',
          'info',
          { answer: err.answer },
          `the adb server does not list mdns services (${JSON.stringify(err.answer)}: adb 29 and before, such as Debian 12's adb package): nothing to follow for a phone on adb tcpip, whose port stays; wireless debugging (Android 11 and later: adb pair, a new port at each reboot) needs adb 30 or later`,
        );
      } else logger.debug({ err: (err as Error).message }, 'mdns services: no answer from the adb server');
      return;
    }
    const listing = parseMdnsServices(text);
    if (listing.over > 0)
      this.once(
        'flood',
        'warn',
        { over: listing.over },
        `adb's mdns listing holds more than ${MAX_LINES} services; the first ${MAX_LINES} are read (a flood of announcements on the lab network?)`,
      );
    if (listing.unread > 0) logger.debug({ unread: listing.unread }, 'mdns services: lines that do not read as a service, left out');
    for (const act of this.follow.step(listing.services, records, now)) {
      switch (act.kind) {
        case 'connect':
          logger.info(
            { serial: act.address, udid: act.udid, from: act.from },
            `network phone ${act.udid}: mdns announces its name ${JSON.stringify(act.instance)} on ${act.address} (it was at ${act.from}, which it left: a reboot draws a new port); connecting it there`,
          );
          try {
            await this.o.adb.connect(act.address);
          } catch (err) {
            // adb's refusal: tried again later. No answer (a deadline, a cut): the server may have connected it, so
            // it is followed as connected, and the device there is found or refused as any.
            if (err instanceof AdbCommandError) this.follow.connectFailed(act.address);
            logger.debug({ serial: act.address, err: (err as Error).message }, 'mdns: connecting the announced address failed');
          }
          break;
        case 'found':
          logger.info({ serial: act.address, udid: act.udid }, `network phone ${act.udid} found again at ${act.address} through mdns`);
          break;
        case 'refuse':
          // Disconnected before the line that says so.
          await this.o.adb.disconnect(act.address).catch(() => undefined);
          this.once(
            `refuse ${act.instance}@${act.address}`,
            'warn',
            { serial: act.address, udid: act.udid, answered: act.answered },
            `the device at ${act.address}, where mdns announces ${JSON.stringify(act.instance)} (the name of ${act.udid}), ${
              act.answered === undefined
                ? 'did not say who it is in time:'
                : `says it is ${JSON.stringify(act.answered)}: a clone or a forged announcement, which takes nothing of ${act.udid};`
            } disconnected, not followed there for ${REFUSE_MS / 60_000} min`,
          );
          break;
        case 'ambiguous':
          this.once(
            `ambiguous ${act.instance}`,
            'warn',
            { addresses: act.addresses },
            `mdns announces the name ${JSON.stringify(act.instance)} of a lost network phone at ${act.addresses.join(' and ')} at once: followed to neither (a clone or a forged announcement beside the phone)`,
          );
          break;
      }
    }
  }

  private once(key: string, level: 'info' | 'warn', fields: Record<string, unknown>, msg: string) {
    if (this.said.has(key)) return;
    // Bounded: a flood of forged names must not grow the set without end.
    if (this.said.size > 1000) this.said.clear();
    this.said.add(key);
    this.o.logger[level](fields, msg);
  }
}
