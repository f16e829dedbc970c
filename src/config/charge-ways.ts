// Which way of charge control applies to a phone: `ID=WAY` for one phone or `model:PATTERN=WAY` (`*` any run). A
// phone's own entry wins, then the first model that matches, so exceptions can go before the rule. Nothing listed: off.

/** The ways the agent can carry out; `off` names an exception to a model's rule. */
const CHARGE_WAYS = ['off', 'uhubctl', 'command', 'samsung'] as const;
export type ChargeWay = (typeof CHARGE_WAYS)[number];
/** The ways that pause a phone's charge by switching its hub port (charge control's); the others switch no port. */
const PORT_WAYS = ['uhubctl', 'command'] as const satisfies readonly ChargeWay[];
export type PortWay = (typeof PORT_WAYS)[number];

export function isPortWay(way: ChargeWay): way is PortWay {
  return (PORT_WAYS as readonly ChargeWay[]).includes(way);
}

interface Entry {
  /** A udid or serial, or undefined for a model pattern. */
  id?: string;
  model?: RegExp;
  way: ChargeWay;
}

// Models have spaces ("Pixel 8 Pro"); ids never do.
const ENTRY = /^(?:model:([^=]+)|([^\s=]+))=([a-z]+)$/;

function parseEntry(text: string): Entry | { problem: string } {
  const m = ENTRY.exec(text);
  if (!m) return { problem: `must be ID=WAY or model:PATTERN=WAY (e.g. model:SM-S9*=uhubctl), got ${JSON.stringify(text)}` };
  const way = m[3]!;
  if (!(CHARGE_WAYS as readonly string[]).includes(way)) return { problem: `${JSON.stringify(text)}: the way must be one of ${CHARGE_WAYS.join(', ')}` };
  if (m[1] === undefined) return { id: m[2]!, way: way as ChargeWay };
  const source = m[1].split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return { model: new RegExp(`^${source.join('.*')}$`, 'i'), way: way as ChargeWay };
}

export function checkChargeWays(value: string[]) {
  const problems = value.map(parseEntry).flatMap((e) => ('problem' in e ? [e.problem] : []));
  return problems.length ? problems.join('; ') : undefined;
}

/** The setting's entries, ready to match. */
export type ChargeWays = readonly Entry[];

/** The entries, ready to match; those that do not parse are left out (the settings check refuses them first). */
export function chargeWaysOf(entries: readonly string[]): ChargeWays {
  return entries.map(parseEntry).filter((e): e is Entry => !('problem' in e));
}

/** The way for a phone: its udid's or serial's entry, else the first model pattern that matches, else off. */
export function chargeWayOf(ways: ChargeWays, phone: { udid?: string; serial: string; model?: string }) {
  const own = ways.find((w) => w.id !== undefined && (w.id === phone.udid || w.id === phone.serial));
  return own ? own.way : modelWayOf(ways, phone.model);
}

/** The phones' own entries, by udid or serial; the first of an id listed twice, as chargeWayOf reads them. */
export function ownWaysOf(ways: ChargeWays): ReadonlyMap<string, ChargeWay> {
  const own = new Map<string, ChargeWay>();
  for (const w of ways) if (w.id !== undefined && !own.has(w.id)) own.set(w.id, w.way);
  return own;
}

/** The way of the first model pattern that matches, else off. */
export function modelWayOf(ways: ChargeWays, model: string | undefined) {
  return (model !== undefined && ways.find((w) => w.model?.test(model))?.way) || 'off';
}

/** What is wrong with a template, or undefined: it must name the port and the action to mean one port switched one way. */
export function checkPortCommand(template: string) {
  if (template.trim() === '') return undefined;
  const missing = ['{port}', '{action}'].filter((p) => !template.includes(p));
  return missing.length
    ? `must name ${missing.join(' and ')} (e.g. "/usr/local/bin/hub-power {hub} {port} {action}"), got ${JSON.stringify(template)}`
    : undefined;
}
