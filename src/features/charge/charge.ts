import type { DeviceAction, Intent } from '../../actions/runner.js';
import { portRefusal } from '../../actions/trust.js';
import { keyRefusalText } from '../../actions/mapping-key.js';
import { cloudIdOf } from '../../booking/gate.js';
import { isPortWay, type PortWay } from '../../config/charge-ways.js';
import type { HubPort } from '../../config/hub-ports.js';
import { claimOf, type Claim } from '../../devices/claims.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import type { PortSwitch } from '../../hub/uhubctl.js';
import { limited } from '../../log/limited.js';
import { backoffDelay, type BackoffPolicy } from '../../util/backoff.js';
import { utcText } from '../../util/clock.js';
import { waitWhileSettling } from '../../util/limit.js';
import type { FeatureContext } from '../context.js';
import type { PausedPort, PortsFile } from './paused-ports.js';
import { ChargePauses, portHeldOff, type ChargeEntry, type ChargePause, type PauseEnd } from './pauses.js';
import { decideCharge } from './policy.js';
import { checkBack, checkCut, cutCheck, powerOf, type PowerBounds } from './power-check.js';
import type { PowerPaths } from './power-paths.js';
import { recordKey } from '../../devices/record.js';
import { counterKey } from '../../stats/counter.js';
import { errorText } from '../../util/error-text.js';

export const CHARGE_PAUSES = counterKey(
  'device_agent_charge_pauses_total',
  'Charge pauses started (a hub port switched off at the high mark, charge.ways).',
  [],
);

export const CHARGE_ENDS = counterKey('device_agent_charge_pause_ends_total', 'Charge pauses ended, by why (booked, max_time, low_mark, power_not_cut).', [
  'why',
]);

/** What the checks of the power path around a pause found. */
export const CHARGE_POWER_CHECKS = counterKey('device_agent_charge_power_checks_total', 'Checks of the power path around charge pauses, by what they found.', [
  'result',
]);

export const CHARGE_SWITCHES = counterKey(
  'device_agent_charge_switches_total',
  'Hub port switches of charge control (action off, on) by result (ok, failed).',
  ['action', 'result'],
);

/** A phone's port on again: how long it may take to come back on adb before its absence means it is gone. */
const WAIT_BACK_MS = 120_000;
/** How long stopping waits for the paused phones' ports to be on again: within the 10 s a service manager allows. */
const STOP_MS = 5_000;
/** A failed switch is tried again after this, doubling, jittered. */
const RETRY: BackoffPolicy = { firstMs: 10_000, maxMs: 5 * 60_000, jitter: 0.5 };
/**
 * A port is named as not cutting power once two readings after its off switch, the last at least 20 s after it, showed
 * the phone on power: Android updates its battery at the charger's uevent within a second, so one could be early.
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

/** A switch of one phone's hub port, off for a pause or on again. */
type SwitchIntent = Intent & { serial: string; power: 'off' | 'on' };

/** What charge control is built with beside the context: how each way switches a port, the ports found not to cut power, and where the ports held off are kept across a crash. */
export interface ChargeParts {
  ports: Partial<Record<PortWay, PortSwitch>>;
  powerPaths: PowerPaths;
  kept: PortsFile<PausedPort> | undefined;
}

/**
 * Charge control through the hub port (uhubctl or command): the charge policy's decisions, one phone's port switched at
 * a time, never awaited by a report. Its state is the registry's pauses: a paused phone is off adb with no record.
 */
export function chargeControl(ctx: FeatureContext, { ports, powerPaths, kept }: ChargeParts): DeviceAction<SwitchIntent> {
  const { registry, logger, stats, clock, mapping } = ctx;
  const phones = ctx.platforms.phones;
  const c = ctx.settings.charge;
  const policy = { ...c, maxPauseMs: c.maxPauseSeconds * 1000, waitBackMs: WAIT_BACK_MS };
  const pauses = new ChargePauses(registry, phones.platform);
  /** What every listed phone claims, as of this look: a pause starts only for a phone whose identity holds (actions/trust.ts). */
  let claims: Claim[] = [];

  /** The pauses whose port is held off now. */
  const heldOff = () => pauses.entries().flatMap(([, e]) => (portHeldOff(e) ? [e.pause!] : []));
  /** Keeps the ports held off now (see pausedPortsFile). */
  const keep = () => kept?.save(heldOff().map(({ hub, port, udid, way }) => ({ hub, port, udid, way })));
  const switchPort = (p: HubPort & { way: PortWay }, power: 'off' | 'on') => {
    const found = ports[p.way];
    return found ? found.switch(p.hub, p.port, power) : Promise.reject(new Error(`no port switch for the way ${p.way}`));
  };
  /** Whether a phone with no entry is for charge control: a port mapped to it (a refused key counts: the refusal says why) that cuts power, and a way that switches it. */
  const inCharge = (r: DeviceSnapshot, udid: string) => {
    const place = mapping.portOf(claimOf(r, udid), claims);
    // A port that kept its phone on power is not used again: no pause, and no booking question for one.
    if (place.kind === 'none' || (place.kind === 'mapped' && powerPaths.uncutAt(place.value.hub, place.value.port))) return false;
    const found = mapping.wayOf(claimOf(r, udid), claims, r.last?.modelName);
    return found.kind === 'refused' || (isPortWay(found.way) && ports[found.way] !== undefined);
  };
  /** The hub port and the way to switch it off with for this phone now, or why it may not be. */
  const pausePlace = (record: DeviceSnapshot, udid: string) => {
    // Switching the port on again is a new USB connection, which a locked phone under it takes as charge-only: lost to adb.
    if (ctx.platforms.facts.advancedProtection(registry, record.key) === 'on')
      return 'it is under Advanced Protection, where a locked phone takes the USB connection after the pause as charge-only, lost to adb';
    const claim = claimOf(record, udid);
    const place = mapping.portOf(claim, claims);
    if (place.kind === 'none') return 'no hub port is mapped to it';
    if (place.kind === 'refused') return keyRefusalText(place.key, place.names);
    const uncut = powerPaths.uncutAt(place.value.hub, place.value.port);
    if (uncut) return `hub ${uncut.hub} port ${uncut.port} does not cut power (${uncut.seen})`;
    const way = mapping.wayOf(claim, claims, record.last?.modelName);
    if (way.kind === 'refused') return keyRefusalText(way.key, way.names);
    return portRefusal(claim, claims, place.value, way.way === 'uhubctl') ?? { place: place.value, way: way.way };
  };
  const switching = (serial: string, power: 'off' | 'on'): SwitchIntent => ({
    target: targetOf(serial),
    // The phone it is for: the flight recorder keeps it in that phone's history (ActionDone).
    device: recordKey(phones.platform, serial),
    serial,
    power,
    count: { key: CHARGE_SWITCHES, labels: [power] },
  });

  /** One look at whether a paused phone's port cut its power; one that did not is marked, said once, and its pause ends. */
  const checkPowerCut = (serial: string, record: DeviceSnapshot | undefined) => {
    const entry = pauses.of(serial)!;
    const pause = entry.pause!;
    const { check, verdict } = checkCut(pause.cut!, powerReading(record), POWER_BOUNDS);
    if (check !== pause.cut) pauses.set(serial, { ...entry, pause: { ...pause, cut: check } });
    if (verdict.kind === 'cut') {
      stats.counter(CHARGE_POWER_CHECKS).add('cut');
      logger.debug({ ...about(pause), seen: verdict.seen }, `hub ${pause.hub} port ${pause.port} cut the power of ${pause.udid}`);
    }
    if (verdict.kind !== 'not-cut') return verdict.kind;
    const seen = `${verdict.readings} readings on power over ${Math.round(verdict.afterMs / 1000)} s with the port switched off`;
    stats.counter(CHARGE_POWER_CHECKS).add('not_cut');
    if (powerPaths.mark({ hub: pause.hub, port: pause.port, udid: pause.udid, seen, atWall: clock.wall() }))
      logger.warn(
        { ...about(pause), seen },
        `hub ${pause.hub} port ${pause.port} does not cut power: ${pause.udid} stayed on power (${seen}); ` +
          `charge control no longer switches this port. To pause this phone's charge, put it on a hub with real per-port power switching (${SUPPORTED_HUBS})`,
      );
    return 'not-cut';
  };

  /** Whether a phone whose pause ended shows power again: 'wait' keeps looking; not on power or not back by the bound is said once. */
  const checkPowerBack = (serial: string, record: DeviceSnapshot | undefined, now: number) => {
    const pause = pauses.of(serial)!.pause!;
    const ended = pause.ended!;
    const since = ended.onWall ?? ended.atWall;
    const verdict = checkBack({ now, until: ended.waitUntil, seen: readSince(record, since) ? powerOf(record.last) : undefined });
    const place = `hub ${pause.hub} port ${pause.port}`;
    const waited = Math.round(policy.waitBackMs / 1000);
    const check = `uhubctl -l ${pause.hub} -p ${pause.port}`;
    if (verdict === 'charging') stats.counter(CHARGE_POWER_CHECKS).add('charging_again');
    if (verdict === 'not-charging' || verdict === 'not-back') {
      stats.counter(CHARGE_POWER_CHECKS).add(verdict === 'not-charging' ? 'not_charging_again' : 'not_back');
      limited(logger).warn(
        verdict === 'not-charging' ? 'charge-not-again' : 'charge-not-back',
        about(pause),
        verdict === 'not-charging'
          ? `${pause.udid} is back on adb after its charge pause but not on power ${waited} s after ${place} was switched on again: check the port's power (${check}), the cable and the hub's power supply`
          : `${pause.udid} is not back on adb ${waited} s after ${place} was switched on again at the end of its charge pause: check that the port is on (${check}) and the phone's cable`,
        serial,
      );
    }
    return verdict;
  };

  /** The pause starts: kept from before its off switch; the cloud hears of it once the port is off (apply), not while the switch may still fail. */
  const pause = (serial: string, udid: string, percent: number, now: number, place: HubPort, way: PortWay) => {
    const wall = clock.wall();
    const maxMs = policy.maxPauseMs;
    pauses.set(serial, {
      failures: 0,
      ...pauses.of(serial),
      pause: {
        udid,
        serial,
        way,
        ...place,
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
      { serial, udid, ...place, percent },
      `pausing the charge of ${udid}: battery at ${percent} % (high mark ${policy.highPercent} %) and the cloud says it is not booked; ` +
        `switching hub ${place.hub} port ${place.port} off until ${utcText(wall + maxMs)} at the latest`,
      serial,
    );
    return [switching(serial, 'off')];
  };

  const resume = (serial: string, why: PauseEnd, now: number, look: { changed(): void }) => {
    const entry = pauses.of(serial)!;
    const p = entry.pause!;
    pauses.set(serial, { ...entry, pause: { ...p, ended: { why, at: now, atWall: clock.wall(), switchedOn: false, waitUntil: Infinity } } });
    stats.counter(CHARGE_ENDS).add(why);
    limited(logger).info(
      'charge-resume',
      { ...about(p), why },
      `ending the charge pause of ${p.udid}: ${WHY[why]}; switching hub ${p.hub} port ${p.port} on`,
      serial,
    );
    look.changed();
    return [switching(serial, 'on')];
  };

  const lookAt = (
    serial: string,
    entry: Readonly<ChargeEntry> | undefined,
    record: DeviceSnapshot | undefined,
    look: Parameters<DeviceAction['decide']>[0],
  ) => {
    const { now } = look;
    const p = entry?.pause;
    // A reading counts only when taken after the pause began or ended: the one before it says nothing of now.
    const after = p?.ended?.atWall ?? p?.sinceWall;
    const fresh = readSince(record, after ?? -Infinity) && record.last !== undefined;
    const level = fresh ? Number(record.last.battery?.percentage) : NaN;
    const udid = record?.udid ?? p?.udid;
    const busy = look.isBusy(targetOf(serial));
    if (p && !p.ended && p.cut && !busy && checkPowerCut(serial, record) === 'not-cut') return resume(serial, 'power_not_cut', now, look);
    const decision = look.decide(cloudIdOf(serial, udid), (verdict) =>
      decideCharge(entry, { now, percent: Number.isFinite(level) ? level : undefined, back: fresh, busy, verdict }, policy),
    );
    switch (decision.kind) {
      case 'pause': {
        const why = pausePlace(record!, udid!);
        if (typeof why === 'object') return isPortWay(why.way) && ports[why.way] ? pause(serial, udid!, level, now, why.place, why.way) : [];
        look.refuse({
          key: record!.key,
          action: 'charge_pause',
          why,
          line: {
            key: 'charge-refused',
            fields: { serial, udid, reason: why },
            text: `not pausing the charge of ${udid} (adb serial ${serial}), battery at ${level} %: ${why}; its hub port is left as it is`,
            subject: serial,
          },
        });
        return [];
      }
      case 'resume':
        return resume(serial, decision.why, now, look);
      case 'switch-on':
        return [switching(serial, 'on')];
      case 'forget': {
        const back = checkPowerBack(serial, record, now);
        if (back === 'wait') return [];
        pauses.forget(serial);
        if (back === 'charging' || back === 'no-evidence')
          limited(logger).info('charge-back', { serial, udid }, `device ${udid ?? serial} is back on adb after its charge pause`, serial);
        return [];
      }
      case 'needs-verdict':
      case 'none':
        // A phone gone from adb's list without a pause leaves nothing worth keeping.
        if (!record && !p && !busy) pauses.forget(serial);
        return [];
    }
  };

  return {
    name: 'charge',
    actsOn: 'power',
    tickMs: 2_000,
    // Looks even with no phone listed in charge.ways: ports a crashed run left off must be switched on after charge control was turned off too.
    wanted: true,
    start(track) {
      // Ports a run that crashed left off: nothing else would ever switch them on.
      powerPaths.load();
      for (const p of kept?.load() ?? []) {
        logger.warn(
          { hub: p.hub, port: p.port, udid: p.udid },
          `switching hub ${p.hub} port ${p.port} on: an earlier run of the agent left it off for a charge pause of ${p.udid}`,
        );
        track(
          switchPort(p, 'on').then(
            () => logger.info({ hub: p.hub, port: p.port }, `hub ${p.hub} port ${p.port} switched on`),
            (err: unknown) => {
              const text = errorText(err);
              logger.warn(
                { hub: p.hub, port: p.port, udid: p.udid, err: text },
                `could not switch hub ${p.hub} port ${p.port} on (an earlier run left it off for ${p.udid}): ${text}; switch it on by hand (${byHand(p)})`,
              );
            },
          ),
        );
      }
      kept?.save([]);
    },
    /** Switches paused phones' ports on before the agent goes (a pause must not outlive who would end it), within the shutdown time. */
    async stop() {
      const off = heldOff();
      if (!off.length) return;
      logger.info({ ports: off.map((p) => `${p.hub}:${p.port}`) }, `switching ${off.length} hub port(s) of paused phones on again before stopping`);
      const switches = off.map((p) =>
        switchPort(p, 'on').then(
          () => pauses.forget(p.serial),
          (err: unknown) =>
            logger.warn(
              { ...about(p), err: errorText(err) },
              `could not switch hub ${p.hub} port ${p.port} on again for ${p.udid} before stopping; switch it on by hand (${byHand(p)})`,
            ),
        ),
      );
      await waitWhileSettling(switches, STOP_MS, STOP_MS, clock);
      keep();
    },
    decide(look) {
      const listed = new Set<string>();
      const records = registry.list(phones.platform);
      claims = records.map((r) => claimOf(r));
      const intents: SwitchIntent[] = [];
      for (const r of records) {
        listed.add(r.serial);
        const entry = pauses.of(r.serial);
        const udid = r.udid ?? entry?.pause?.udid;
        // A key naming two phones is not mapped for either: refused below, said once by the look-up.
        if (!entry && (udid === undefined || !inCharge(r, udid))) continue;
        intents.push(...lookAt(r.serial, entry, r, look));
      }
      // Paused phones are off adb: their pause outlives their record.
      for (const [serial, entry] of pauses.entries()) if (!listed.has(serial)) intents.push(...lookAt(serial, entry, undefined, look));
      keep();
      return intents;
    },
    async apply({ serial, power }, look) {
      const was = pauses.of(serial)!.pause!;
      const output = await switchPort(was, power);
      const current = pauses.of(serial)!;
      const p = current.pause;
      const wall = clock.wall();
      // Off, the power cut is checked from now; on, after the pause, the phone must show power again.
      const ended = p?.ended && power === 'on' ? { ...p.ended, switchedOn: true, waitUntil: clock.monotonic() + policy.waitBackMs, onWall: wall } : p?.ended;
      pauses.set(serial, {
        ...current,
        failures: 0,
        retryAt: undefined,
        pause: p && (p.ended ? { ...p, ended } : power === 'off' ? { ...p, cut: cutCheck(wall) } : p),
      });
      const again = current.failures > 0 ? ` (after ${current.failures} failed tries)` : '';
      logger.info({ ...about(was), output }, `hub ${was.hub} port ${was.port} switched ${power}${again}`);
      keep();
      if (power === 'off') look.changed();
    },
    failed({ serial, power }, err, look) {
      const failure = errorText(err);
      const current = pauses.of(serial)!;
      const { hub, port, udid } = current.pause!;
      const failures = current.failures + 1;
      const waitMs = backoffDelay(failures, RETRY, clock.random());
      // An off switch that failed leaves the port on: no pause, and the phone charges as before.
      pauses.set(serial, { ...current, failures, retryAt: clock.monotonic() + waitMs, ...(power === 'off' && { pause: undefined }) });
      const about = `about ${Math.round(waitMs / 1000)} s`;
      const what =
        power === 'off'
          ? `its charge is not paused; a pause is tried again in ${about} at the earliest`
          : `the phone stays without USB power until it works; the agent tries again in ${about}, and on, less and less often`;
      // Said once per run of failures: the retries that follow fail the same way.
      if (failures === 1)
        limited(logger).warn(
          'charge-switch-failed',
          { serial, udid, hub, port, power, err: failure },
          `could not switch hub ${hub} port ${port} ${power} for ${udid}: ${failure}; ${what}`,
          serial,
        );
      else logger.debug({ serial, udid, hub, port, power, failures, err: failure }, `switching hub ${hub} port ${port} ${power} failed again`);
      if (power === 'off') look.changed();
      keep();
    },
  };
}

/** A paused phone's latest reading for the power check (its battery service's time and word); gone: off its source's list. */
function powerReading(record: DeviceSnapshot | undefined) {
  if (record === undefined) return 'gone';
  if (!readSince(record, -Infinity)) return undefined;
  return { at: record.last?.batteryDetail?.observedAtMs ?? record.inventoriedAt, seen: powerOf(record.last) };
}

/** Whether the phone is on adb and its inventory answered after wall ms `since`: only such a reading says anything of now. */
function readSince(record: DeviceSnapshot | undefined, since: number): record is DeviceSnapshot & { inventoriedAt: number } {
  return record?.state === 'device' && record.failures === 0 && record.inventoriedAt !== undefined && record.inventoriedAt > since;
}

/** The runner's target for the switches of one phone's port: one at a time, and the policy decides nothing while one is in flight. */
function targetOf(serial: string) {
  return `charge ${serial}`;
}

/** A pause's phone and port, as its lines' fields name them. */
function about({ serial, udid, hub, port }: ChargePause) {
  return { serial, udid, hub, port };
}

/** What an operator runs to switch a port on that the agent could not. */
function byHand(p: HubPort & { way: PortWay }) {
  return p.way === 'uhubctl' ? `uhubctl -l ${p.hub} -p ${p.port} -a on` : `charge.command with hub ${p.hub}, port ${p.port}, action on`;
}
