// One cause for many symptoms: several phones of one host turning hot within minutes are one problem of the room or
// the host (a warm room, blocked airflow, a hot hub), not N phone problems. Pure.
//
// An episode starts when HOST_HOT_PHONES or more phones turned hot within HOST_HOT_WINDOW_MS, each since the last
// episode ended (so a phone that stays hot or flaps cannot start one after another); it ends when fewer are still hot.
// One line when it starts, one when it ends: at most two lines per HOST_HOT_PHONES phones turning hot.
import { isHot, type HealthSettings } from '../health/rules.js';
import { sharedKey } from '../../util/shared-parts.js';
import type { FeatureContext } from '../context.js';

/** Phones turned hot together that make a host-level episode (health.hostHotPhones's default). */
export const HOST_HOT_PHONES = 3;
/** Within how long of each other they turned hot (health.hostHotWindowMinutes's default). */
export const HOST_HOT_WINDOW_MS = 10 * 60_000;
/** Phones named in the line; the count says the rest. */
const NAMED = 10;

export interface HeatReading {
  udid: string;
  celsius: number;
}

export type HostHeatLine =
  { kind: 'start'; phones: readonly HeatReading[]; message: string } | { kind: 'over'; stillHot: number; lastedMs: number; message: string };

interface Phone {
  hot: boolean;
  /** When it last turned hot (monotonic ms). */
  since: number;
  celsius: number;
}

/** A phone's own warning that its battery turned hot, held until the host-level pass of the same report. */
export interface HotWarning {
  udid: string;
  message: string;
}

export class HostHeat {
  private readonly phones = new Map<string, Phone>();
  private episodeSince: number | undefined;
  private lastEnd = -Infinity;
  private held: HotWarning[] = [];

  constructor(
    private readonly settings: Pick<HealthSettings, 'batteryHotCelsius' | 'batteryHotHysteresisCelsius'>,
    private readonly threshold = HOST_HOT_PHONES,
    private readonly windowMs = HOST_HOT_WINDOW_MS,
  ) {}

  /** One report's readings at `now`: the line to log when an episode starts or ends; a phone without a reading is forgotten. */
  observe(readings: readonly HeatReading[], now: number): HostHeatLine | undefined {
    const seen = new Set<string>();
    for (const { udid, celsius } of readings) {
      if (seen.has(udid) || !Number.isFinite(celsius)) continue;
      seen.add(udid);
      const was = this.phones.get(udid);
      const hot = isHot(celsius, was?.hot ?? false, this.settings);
      this.phones.set(udid, { hot, since: hot && !was?.hot ? now : (was?.since ?? now), celsius });
    }
    for (const udid of [...this.phones.keys()]) if (!seen.has(udid)) this.phones.delete(udid);
    const hot = this.hot();
    if (this.episodeSince === undefined) {
      const fresh = hot.filter(([, p]) => p.since > this.lastEnd && now - p.since <= this.windowMs);
      if (fresh.length < this.threshold) return undefined;
      this.episodeSince = now;
      const phones = hot.map(([udid, p]) => ({ udid, celsius: p.celsius }));
      return { kind: 'start', phones, message: startMessage(phones, this.windowMs, this.settings.batteryHotCelsius) };
    }
    if (hot.length >= this.threshold) return undefined;
    const lastedMs = now - this.episodeSince;
    this.episodeSince = undefined;
    this.lastEnd = now;
    return { kind: 'over', stillHot: hot.length, lastedMs, message: overMessage(hot.length, lastedMs) };
  }

  /** Health's hot warning for a phone waits here for this report's observe: an episode's line names its phones instead. */
  hold(warning: HotWarning) {
    this.held.push(warning);
  }

  /** The held warnings to say after this report's observe: all of them, but those of phones hot in an episode that holds. */
  release() {
    const hot = new Set(this.episode ? this.hotPhones() : []);
    const say = this.held.filter((w) => !hot.has(w.udid));
    this.held = [];
    return say;
  }

  /** Whether a host-level episode holds now. */
  get episode() {
    return this.episodeSince !== undefined;
  }

  /** The phones whose battery is hot now, by udid. */
  hotPhones() {
    return this.hot().map(([udid]) => udid);
  }

  private hot() {
    return [...this.phones].filter(([, p]) => p.hot);
  }
}

/** What a hot phone's message says while the episode holds. */
export function hostHeatNote(hotPhones: number) {
  return `one of ${hotPhones} phones on this host whose batteries turned hot together: most likely the room or the host (temperature, airflow, a hot hub or charger), not this phone; see the host's warning`;
}

function startMessage(phones: readonly HeatReading[], windowMs: number, limit: number) {
  const named = phones
    .slice(0, NAMED)
    .map((p) => `${p.udid} ${p.celsius} °C`)
    .join(', ');
  const more = phones.length > NAMED ? ` and ${phones.length - NAMED} more` : '';
  return (
    `host: ${phones.length} phones have hot batteries (limit ${limit} °C), turned hot within ${Math.round(windowMs / 60_000)} min of each other ` +
    `(${named}${more}): one cause on this host, not ${phones.length} phone problems; ` +
    'check the room temperature and its air conditioning, the airflow around the phones and hubs, and the host itself (a hot hub, charger or case)'
  );
}

function overMessage(stillHot: number, lastedMs: number) {
  const still = stillHot === 0 ? 'no phone is hot now' : `${stillHot} still hot, each a phone of its own to look at`;
  return `host: phones hot together is over after ${Math.max(1, Math.round(lastedMs / 60_000))} min: ${still}`;
}

/** The host's one judge of hot batteries: the host-heat feature says the host's line, and health a phone's own hot warning after it, unless the host's line names it. */
const HOST_HEAT = sharedKey<HostHeat>('host-heat');

/** The judge, as the settings size it, the same for every feature of one build. */
export function hostHeatOf(ctx: Pick<FeatureContext, 'settings' | 'shared'>) {
  const s = ctx.settings.health;
  return ctx.shared.of(HOST_HEAT, () => new HostHeat(s, s.hostHotPhones, s.hostHotWindowMinutes * 60_000));
}
