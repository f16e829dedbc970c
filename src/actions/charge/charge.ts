import { ActionRunner, RunnerAction, type ActionOptions } from '../runner.js';
import { CHARGE_ENDS, CHARGE_PAUSES, CHARGE_SWITCHES } from './counts.js';
import { chargeWaysOf, isPortWay, type PortWay } from '../../config/charge-ways.js';
import type { HubPort } from '../../config/hub-ports.js';
import type { Settings } from '../../config/schema.js';
import type { ChargePauses, ChargeEntry, ChargePause, PauseEnd } from '../../hub/charge-pauses.js';
import { OwedPauses } from './paused-report.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import type { PhoneControl } from '../../devices/control.js';
import { limited } from '../../log/limited.js';
import { SaidOnce } from '../../log/said-once.js';
import { backoffDelay, type BackoffPolicy } from '../../util/backoff.js';
import { utcText, type Timer } from '../../util/clock.js';
import { cloudIdOf, type BookingGate } from '../../booking/gate.js';
import { decideCharge, type ChargeSettings } from './policy.js';
import type { PortSwitch } from '../../hub/uhubctl.js';
import type { PausedPortsKeeper } from './paused-ports.js';
import { claimOf, type Claim } from '../../devices/claims.js';
import { portRefusal } from '../trust.js';
import { DeviceMapping } from '../device-mapping.js';
import { keyRefusalText } from '../mapping-key.js';
import { checkBack, checkCut, cutCheck, powerOf, type BackVerdict, type CutLook, type CutVerdict, type PowerBounds } from './power-check.js';
import { PowerPaths } from './power-paths.js';

export interface ChargeControlOptions extends ActionOptions {
  /** The platform whose phones it pauses, as handed to the actions: a paused phone leaves that platform's listing. */
  phones: PhoneControl;
  settings: Pick<Settings, 'charge'>;
  /** The hub port behind each phone (settings: hubPorts); looked up through `mapping` when given. */
  hubPorts: ReadonlyMap<string, HubPort>;
  /** The look-up shared with recovery (a key naming two phones said once); else one of its own from hubPorts and charge.ways. */
  mapping?: DeviceMapping;
  /** How each way switches a port: uhubctl, and the operator's command where charge.command is set. */
  ports: Partial<Record<PortWay, PortSwitch>>;
  /** Shared with recovery: the host's status requests are bounded together. */
  gate: BookingGate;
  /** A pause started or ended: the cloud should hear it now, not at the next schedule. */
  onChange?: () => void;
  /** Where the ports held off are kept, so that a start after a crash switches them on (state directory). */
  kept?: PausedPortsKeeper;
  /** The hub ports found not to cut power, shared with the charge feature (notes, metrics) and kept across restarts; else one of its own in memory. */
  powerPaths?: PowerPaths;
}

/** A phone's port on again: how long it may take to come back on adb before its absence means it is gone. */
const WAIT_BACK_MS = 120_000;
/** How long stopping waits for the paused phones' ports to be on again: within the 10 s a service manager allows. */
const STOP_MS = 5_000;
/** A failed switch is tried again after this, doubling, jittered. */
const RETRY: BackoffPolicy = { firstMs: 10_000, maxMs: 5 * 60_000, jitter: 0.5 };
/**
 * A port is named as not cutting power once two readings after its off
 * switch, the last at least 20 s after it, showed the phone still on power:
 * Android updates its battery service at the charger's uevent, well within
 * a second, so one reading could be a moment early, two 20 s apart are not.
 */
const POWER_BOUNDS: PowerBounds = { cutWithinMs: 20_000, readings: 2 };
/** Where uhubctl lists the hubs known to switch each port's power. */
const SUPPORTED_HUBS = 'https://github.com/mvp/uhubctl#compatible-usb-hubs';

const WHY: Record<PauseEnd, string> = {
  booked: 'the cloud says it is booked',
  max_time: 'the longest pause (charge.maxPauseSeconds) is up',
  low_mark: 'the battery is down to the low mark',
  power_not_cut: 'its phone stayed on power with the port off, so the pause spares nothing',
};

/**
 * Charge control through the hub port (charge.ways = uhubctl): carries out
 * what the charge policy decides, one switch per phone at a time, never
 * awaited by a report. Its state is the registry's (ChargePauses), since a
 * paused phone is off adb and has no record.
 */
export class ChargeControl extends RunnerAction {
  readonly name = 'charge';
  readonly tickMs: number;
  private readonly mapping: DeviceMapping;
  private readonly policy: ChargeSettings;
  private readonly pauses: ChargePauses;
  private readonly powerPaths: PowerPaths;
  /** What every listed phone claims, as of this look: a pause starts only for a phone whose identity holds (actions/trust.ts). */
  private claims: Claim[] = [];
  /** Phones whose pause was refused, and why: said once per reason. */
  private readonly refused = new SaidOnce(() => this.options.clock.monotonic());

  constructor(private readonly options: ChargeControlOptions) {
    const { clock, gate, booking, onChange } = options;
    super(options.runner ?? new ActionRunner({ clock, gate, booking, ...(onChange && { onChange }) }));
    this.pauses = new OwedPauses(options.registry, options.phones.platform);
    this.powerPaths = options.powerPaths ?? new PowerPaths();
    this.tickMs = options.tickMs ?? 2_000;
    const c = options.settings.charge;
    this.mapping =
      options.mapping ?? new DeviceMapping({ hubPorts: options.hubPorts, chargeWays: chargeWaysOf(c.ways), logger: options.logger, clock: options.clock });
    this.policy = { highPercent: c.highPercent, lowPercent: c.lowPercent, maxPauseMs: c.maxPauseSeconds * 1000, waitBackMs: WAIT_BACK_MS };
  }

  override start(): void {
    // Ports a run that crashed left off: nothing else would ever switch them on.
    const { kept, logger } = this.options;
    this.powerPaths.load();
    for (const p of kept?.load() ?? []) {
      logger.warn(
        { hub: p.hub, port: p.port, udid: p.udid },
        `switching hub ${p.hub} port ${p.port} on: an earlier run of the agent left it off for a charge pause of ${p.udid}`,
      );
      this.runner.track(
        this.portsOf(p.way)
          .then((s) => s.switch(p.hub, p.port, 'on'))
          .then(
            () => logger.info({ hub: p.hub, port: p.port }, `hub ${p.hub} port ${p.port} switched on`),
            (err: unknown) => {
              const text = err instanceof Error ? err.message : String(err);
              logger.warn(
                { hub: p.hub, port: p.port, udid: p.udid, err: text },
                `could not switch hub ${p.hub} port ${p.port} on (an earlier run left it off for ${p.udid}): ${text}; switch it on by hand (${byHand(p)})`,
              );
            },
          ),
      );
    }
    kept?.save([]);
    super.start();
  }

  /** Keeps the ports held off now (see PausedPortsFile). */
  private keep(): void {
    const off = this.pauses.entries().flatMap(([, e]) => (e.pause && !e.pause.ended?.switchedOn ? [e.pause] : []));
    this.options.kept?.save(off.map((p) => ({ hub: p.hub, port: p.port, udid: p.udid, way: p.way })));
  }

  /**
   * Switches the ports of paused phones on again before the agent goes: a
   * pause must not outlive the one who would end it. Bounded, so that the
   * agent still stops within its shutdown time.
   */
  override async stop(withinMs = STOP_MS): Promise<void> {
    await super.stop();
    const { logger } = this.options;
    const off = this.pauses.entries().flatMap(([serial, e]) => (e.pause && !e.pause.ended?.switchedOn ? [{ ...e.pause, serial }] : []));
    if (!off.length) return;
    logger.info({ ports: off.map((p) => `${p.hub}:${p.port}`) }, `switching ${off.length} hub port(s) of paused phones on again before stopping`);
    const all = Promise.all(
      off.map((p) =>
        this.portsOf(p.way)
          .then((s) => s.switch(p.hub, p.port, 'on'))
          .then(
            () => this.pauses.forget(p.serial),
            (err: unknown) =>
              logger.warn(
                { serial: p.serial, udid: p.udid, hub: p.hub, port: p.port, err: err instanceof Error ? err.message : String(err) },
                `could not switch hub ${p.hub} port ${p.port} on again for ${p.udid} before stopping; switch it on by hand (${byHand(p)})`,
              ),
          ),
      ),
    );
    let timer: Timer | undefined;
    await Promise.race([all, new Promise<void>((resolve) => (timer = this.options.clock.setTimer(resolve, withinMs)))]);
    timer?.cancel();
    this.keep();
  }

  look(): void {
    if (this.stopped) return;
    const { registry, phones } = this.options;
    const now = this.options.clock.monotonic();
    const listed = new Set<string>();
    const records = registry.list(phones.platform);
    this.claims = records.map((r) => claimOf(r));
    for (const r of records) {
      listed.add(r.serial);
      const entry = this.pauses.of(r.serial);
      const udid = r.udid ?? entry?.pause?.udid;
      // A key naming two phones is not mapped for either: refused below, said once by the look-up.
      if (!entry && (udid === undefined || this.placeOf(r, udid).kind === 'none' || this.wayOf(udid, r) === undefined)) continue;
      // A port that kept its phone on power is not used again: no pause, and no booking question for one.
      if (!entry && this.uncutPortOf(r, udid!)) continue;
      this.lookAt(r.serial, entry, r, now);
    }
    // Paused phones are off adb: their pause outlives their record.
    for (const [serial, entry] of this.pauses.entries()) if (!listed.has(serial)) this.lookAt(serial, entry, undefined, now);
    this.refused.retain((serial) => listed.has(serial));
    this.keep();
  }

  /** Why this phone's port may not be switched off for it now, or undefined. */
  private refusal(record: DeviceSnapshot, udid: string): string | undefined {
    const place = this.placeOf(record, udid);
    if (place.kind === 'none') return 'no hub port is mapped to it';
    if (place.kind === 'refused') return keyRefusalText(place.key, place.names);
    const uncut = this.powerPaths.uncutAt(place.value.hub, place.value.port);
    if (uncut) return `hub ${uncut.hub} port ${uncut.port} does not cut power (${uncut.seen})`;
    const way = this.mapping.wayOf(claimOf(record, udid), this.claims, record.last?.modelName);
    if (way.kind === 'refused') return keyRefusalText(way.key, way.names);
    return portRefusal(claimOf(record, udid), this.claims, place.value, way.way === 'uhubctl');
  }

  /** The mark of the port mapped to this phone, when that port does not cut power. */
  private uncutPortOf(r: DeviceSnapshot, udid: string) {
    const place = this.placeOf(r, udid);
    return place.kind === 'mapped' ? this.powerPaths.uncutAt(place.value.hub, place.value.port) : undefined;
  }

  /** The hub port mapped to this phone, as the shared look-up finds it. */
  private placeOf(r: DeviceSnapshot, udid: string) {
    return this.mapping.portOf(claimOf(r, udid), this.claims);
  }

  /** The way that switches this phone's port, when one does; a refused key counts as one here (the refusal says why). */
  private wayOf(udid: string, r: DeviceSnapshot): PortWay | 'refused' | undefined {
    const found = this.mapping.wayOf(claimOf(r, udid), this.claims, r.last?.modelName);
    if (found.kind === 'refused') return 'refused';
    const way = found.way;
    return isPortWay(way) && this.options.ports[way] ? way : undefined;
  }

  private portsOf(way: PortWay): Promise<PortSwitch> {
    const ports = this.options.ports[way];
    return ports ? Promise.resolve(ports) : Promise.reject(new Error(`no port switch for the way ${way}`));
  }

  private lookAt(serial: string, entry: Readonly<ChargeEntry> | undefined, record: DeviceSnapshot | undefined, now: number): void {
    const pause = entry?.pause;
    // A reading counts only when taken after the pause began or ended: the one before it says nothing of now.
    const after = pause?.ended?.atWall ?? pause?.sinceWall;
    const fresh =
      record !== undefined &&
      record.state === 'device' &&
      record.failures === 0 &&
      record.last !== undefined &&
      record.inventoriedAt !== undefined &&
      (after === undefined || record.inventoriedAt > after);
    const level = fresh ? Number(record.last.battery?.percentage) : NaN;
    const udid = record?.udid ?? pause?.udid;
    const busy = this.runner.isBusy(targetOf(serial));
    if (pause && !pause.ended && pause.cut && !busy && this.checkPowerCut(serial, record, now) === 'not-cut') return;
    const id = cloudIdOf(serial, udid);
    const decision = this.runner.decide(id, this, (verdict) =>
      decideCharge(entry, { now, percent: Number.isFinite(level) ? level : undefined, back: fresh, busy, verdict }, this.policy),
    );
    switch (decision.kind) {
      case 'pause': {
        const refusal = this.refusal(record!, udid!);
        if (refusal === undefined) return this.pause(serial, record!, udid!, level, now);
        if (this.refused.say(serial, refusal)) {
          this.options.stats.noteRefused('charge_pause');
          limited(this.options.logger).warn(
            'charge-refused',
            { serial, udid, reason: refusal },
            `not pausing the charge of ${udid} (adb serial ${serial}), battery at ${level} %: ${refusal}; its hub port is left as it is`,
            serial,
          );
        }
        return;
      }
      case 'resume':
        return this.resume(serial, decision.why, now);
      case 'switch-on':
        return this.switchOn(serial);
      case 'forget': {
        const back = this.checkPowerBack(serial, record, now);
        if (back === 'wait') return;
        this.pauses.forget(serial);
        if (back === 'charging' || back === 'no-evidence')
          limited(this.options.logger).info('charge-back', { serial, udid }, `device ${udid ?? serial} is back on adb after its charge pause`, serial);
        return;
      }
      case 'needs-verdict':
      case 'none':
        // A phone gone from adb's list without a pause leaves nothing worth keeping.
        if (!record && !pause && !busy) this.pauses.forget(serial);
        return;
    }
  }

  /**
   * One look at whether a paused phone's port cut its power (power-check.ts).
   * A port that kept it on power is marked, said once, and the pause ends:
   * it spares the battery nothing.
   */
  private checkPowerCut(serial: string, record: DeviceSnapshot | undefined, now: number): CutVerdict['kind'] {
    const entry = this.pauses.of(serial)!;
    const pause = entry.pause!;
    const { check, verdict } = checkCut(pause.cut!, { reading: powerReading(record) }, POWER_BOUNDS);
    if (check !== pause.cut) this.pauses.set(serial, { ...entry, pause: { ...pause, cut: check } });
    if (verdict.kind === 'cut') {
      this.powerPaths.count('cut');
      this.options.logger.debug(
        { serial, udid: pause.udid, hub: pause.hub, port: pause.port, seen: verdict.seen },
        `hub ${pause.hub} port ${pause.port} cut the power of ${pause.udid}`,
      );
    }
    if (verdict.kind !== 'not-cut') return verdict.kind;
    const seen = `${verdict.readings} readings on power over ${Math.round(verdict.afterMs / 1000)} s with the port switched off`;
    this.powerPaths.count('not_cut');
    if (this.powerPaths.mark({ hub: pause.hub, port: pause.port, udid: pause.udid, seen, atWall: this.options.clock.wall() }))
      this.options.logger.warn(
        { serial, udid: pause.udid, hub: pause.hub, port: pause.port, seen },
        `hub ${pause.hub} port ${pause.port} does not cut power: ${pause.udid} stayed on power (${seen}); ` +
          `charge control no longer switches this port. To pause this phone's charge, put it on a hub with real per-port power switching (${SUPPORTED_HUBS})`,
      );
    this.resume(serial, 'power_not_cut', now);
    return 'not-cut';
  }

  /**
   * Whether a phone whose pause ended shows power again (power-check.ts):
   * 'wait' keeps its entry for a later reading; a phone not on power, or not
   * back, by the bound is said once.
   */
  private checkPowerBack(serial: string, record: DeviceSnapshot | undefined, now: number): BackVerdict {
    const pause = this.pauses.of(serial)!.pause!;
    const ended = pause.ended!;
    const since = ended.onWall ?? ended.atWall;
    const fresh = record?.state === 'device' && record.failures === 0 && record.inventoriedAt !== undefined && record.inventoriedAt > since;
    const verdict = checkBack({ now, until: ended.waitUntil, seen: fresh ? powerOf(record.last) : undefined });
    const place = `hub ${pause.hub} port ${pause.port}`;
    const fields = { serial, udid: pause.udid, hub: pause.hub, port: pause.port };
    const waited = Math.round(this.policy.waitBackMs / 1000);
    if (verdict === 'charging') this.powerPaths.count('charging_again');
    if (verdict === 'not-charging') {
      this.powerPaths.count('not_charging_again');
      limited(this.options.logger).warn(
        'charge-not-again',
        fields,
        `${pause.udid} is back on adb after its charge pause but not on power ${waited} s after ${place} was switched on again: ` +
          `check the port's power (uhubctl -l ${pause.hub} -p ${pause.port}), the cable and the hub's power supply`,
        serial,
      );
    }
    if (verdict === 'not-back') {
      this.powerPaths.count('not_back');
      limited(this.options.logger).warn(
        'charge-not-back',
        fields,
        `${pause.udid} is not back on adb ${waited} s after ${place} was switched on again at the end of its charge pause: ` +
          `check that the port is on (uhubctl -l ${pause.hub} -p ${pause.port}) and the phone's cable`,
        serial,
      );
    }
    return verdict;
  }

  private pause(serial: string, record: DeviceSnapshot, udid: string, percent: number, now: number): void {
    const { clock, stats, logger } = this.options;
    const found = this.placeOf(record, udid);
    const way = this.wayOf(udid, record);
    // refusal() said yes just before, on the same claims.
    if (found.kind !== 'mapped' || way === undefined || way === 'refused') return;
    const place = found.value;
    const wall = clock.wall();
    const maxMs = this.policy.maxPauseMs;
    this.pauses.set(serial, {
      ...this.pauses.of(serial),
      failures: this.pauses.of(serial)?.failures ?? 0,
      pause: {
        udid,
        serial,
        way,
        hub: place.hub,
        port: place.port,
        percent,
        since: now,
        sinceWall: wall,
        until: now + maxMs,
        untilWall: wall + maxMs,
      },
    });
    stats.counter(CHARGE_PAUSES).add();
    limited(logger).info(
      'charge-pause',
      { serial, udid, hub: place.hub, port: place.port, percent },
      `pausing the charge of ${udid}: battery at ${percent} % (high mark ${this.policy.highPercent} %) and the cloud says it is not booked; ` +
        `switching hub ${place.hub} port ${place.port} off until ${utcText(wall + maxMs)} at the latest`,
      serial,
    );
    // The cloud hears of the pause once the port is off (switchPort), not while the switch may still fail.
    this.runner.run(targetOf(serial), () => this.switchPort(serial, 'off'));
  }

  private resume(serial: string, why: PauseEnd, now: number): void {
    const { clock, stats, logger } = this.options;
    const entry = this.pauses.of(serial)!;
    const pause = entry.pause!;
    this.pauses.set(serial, { ...entry, pause: { ...pause, ended: { why, at: now, atWall: clock.wall(), switchedOn: false, waitUntil: Infinity } } });
    stats.counter(CHARGE_ENDS).add(why);
    limited(logger).info(
      'charge-resume',
      { serial, udid: pause.udid, hub: pause.hub, port: pause.port, why },
      `ending the charge pause of ${pause.udid}: ${WHY[why]}; switching hub ${pause.hub} port ${pause.port} on`,
      serial,
    );
    this.runner.changed();
    this.switchOn(serial);
  }

  private switchOn(serial: string): void {
    this.runner.run(targetOf(serial), () => this.switchPort(serial, 'on'));
  }

  private async switchPort(serial: string, power: 'off' | 'on'): Promise<void> {
    const { clock, stats, logger } = this.options;
    const entry = this.pauses.of(serial)!;
    const { hub, port, udid } = entry.pause!;
    let failure: string | undefined;
    let output = '';
    try {
      output = await (await this.portsOf(entry.pause!.way)).switch(hub, port, power);
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
    }
    stats.counter(CHARGE_SWITCHES).add(power, failure === undefined ? 'ok' : 'failed');
    const now = clock.monotonic();
    const current = this.pauses.of(serial)!;
    if (failure === undefined) {
      const pause = current.pause;
      const wall = clock.wall();
      this.pauses.set(serial, {
        ...current,
        failures: 0,
        retryAt: undefined,
        ...(pause && { pause: switched(pause, power, now, wall, this.policy.waitBackMs) }),
      });
      const again = current.failures > 0 ? ` (after ${current.failures} failed tries)` : '';
      logger.info({ serial, udid, hub, port, output }, `hub ${hub} port ${port} switched ${power}${again}`);
      this.keep();
      if (power === 'off') this.runner.changed();
      return;
    }
    const failures = current.failures + 1;
    const waitMs = backoffDelay(failures, RETRY, clock.random());
    // An off switch that failed leaves the port on: no pause, and the phone charges as before.
    this.pauses.set(serial, { ...current, failures, retryAt: now + waitMs, ...(power === 'off' && { pause: undefined }) });
    const what =
      power === 'off'
        ? `its charge is not paused; a pause is tried again in about ${Math.round(waitMs / 1000)} s at the earliest`
        : `the phone stays without USB power until it works; the agent tries again in about ${Math.round(waitMs / 1000)} s, and on, less and less often`;
    // Said once per run of failures: the retries that follow fail the same way.
    if (failures === 1)
      limited(logger).warn(
        'charge-switch-failed',
        { serial, udid, hub, port, power, err: failure },
        `could not switch hub ${hub} port ${port} ${power} for ${udid}: ${failure}; ${what}`,
        serial,
      );
    else logger.debug({ serial, udid, hub, port, power, failures, err: failure }, `switching hub ${hub} port ${port} ${power} failed again`);
    if (power === 'off') this.runner.changed();
    this.keep();
  }
}

/**
 * A pause once its port switched: off, the power cut is checked from now on
 * (power-check.ts); on, after the pause ended, the phone is waited for and
 * must show power again.
 */
function switched(pause: Readonly<ChargePause>, power: 'off' | 'on', now: number, wall: number, waitBackMs: number): ChargePause {
  if (power === 'off') return pause.ended ? pause : { ...pause, cut: cutCheck(wall) };
  return pause.ended ? { ...pause, ended: { ...pause.ended, switchedOn: true, waitUntil: now + waitBackMs, onWall: wall } } : pause;
}

/**
 * A paused phone's latest reading for the power check: when its battery
 * service answered (where the inventory says: one that ends after the switch
 * may have read it before) and what it says; gone: off its source's list.
 */
function powerReading(record: DeviceSnapshot | undefined): CutLook['reading'] {
  if (record === undefined) return 'gone';
  if (record.state !== 'device' || record.failures !== 0 || record.inventoriedAt === undefined) return undefined;
  return { at: record.last?.batteryDetail?.observedAtMs ?? record.inventoriedAt, seen: powerOf(record.last) };
}

/** The runner's target for the switches of one phone's port: one at a time, and the policy decides nothing while one is in flight. */
function targetOf(serial: string): string {
  return `charge ${serial}`;
}

/** What an operator runs to switch a port on that the agent could not. */
function byHand(p: { hub: string; port: number; way: PortWay }): string {
  return p.way === 'uhubctl' ? `uhubctl -l ${p.hub} -p ${p.port} -a on` : `charge.command with hub ${p.hub}, port ${p.port}, action on`;
}
