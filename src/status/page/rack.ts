/// <reference lib="dom" />
// The status page's one script, served as tsc compiles it (src/status/page-serve.ts): it asks the daemon for its data
// every POLL_MS with the ETag of what it shows (a 304 costs the daemon next to nothing, and nothing is asked while no
// page is open), draws the rack or one phone's page (the hash names the phone), and says when the daemon stopped
// answering. Every string from the data goes in as text (createTextNode), never as markup; it acts on nothing.
import type { PageHost, PhonePage, RackPage } from '../page-data.js';
import type { DeviceRow } from '../../devices/feature-view.js';

/** How often the page asks: a change the daemon's data shows is on the page within POLL_MS and one answer. */
export const POLL_MS = 1000;
/** An answer not come by then is a daemon that does not answer. */
export const ASK_MS = 2000;

/** What one question gave: a new body with its ETag, or none when the one shown is still the daemon's (304). */
export interface Answer {
  etag?: string;
  body?: unknown;
}

export interface FollowTime {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/**
 * Asks `url()` every POLL_MS, sending the ETag of the body shown when it is the same URL, and shows each new body;
 * `lost(since)` when a question fails (the daemon does not answer, or answers an error), `lost(undefined)` once one
 * answers again. `ask` throws for a failed question.
 */
export async function follow(
  url: () => string,
  ask: (url: string, etag: string | undefined) => Promise<Answer>,
  show: (body: unknown) => void,
  lost: (since: number | undefined) => void,
  time: FollowTime,
  going: () => boolean = () => true,
) {
  let shown: { url: string; etag?: string } | undefined;
  let answeredAt: number | undefined = time.now();
  while (going()) {
    const started = time.now();
    const target = url();
    try {
      const answer = await ask(target, shown?.url === target ? shown.etag : undefined);
      if (answeredAt === undefined) lost(undefined);
      answeredAt = time.now();
      if (answer.body !== undefined) {
        shown = { url: target, ...(answer.etag !== undefined && { etag: answer.etag }) };
        show(answer.body);
      }
    } catch {
      if (answeredAt !== undefined) lost(answeredAt);
      answeredAt = undefined;
    }
    await time.sleep(Math.max(0, POLL_MS - (time.now() - started)));
  }
}

type Child = Node | string | false | undefined | null;

/** An element; a string child is text, whatever it holds. */
function h(tag: string, props: Record<string, string> = {}, ...children: Child[]) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props))
    if (k === 'class') e.className = v;
    else e.setAttribute(k, v);
  for (const c of children) if (c !== false && c !== undefined && c !== null) e.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return e;
}

/** The children replaceChildren takes: the ones that are something (a false, '' or null draws nothing). */
const drawn = (children: Child[]) => children.flatMap((c) => (c ? [c] : []));

const hhmm = (at: number) => `${new Date(at).toISOString().slice(11, 16)}Z`;
const when = (at: number) => new Date(at).toISOString().replace('T', ' ').slice(0, 19) + 'Z';
const phoneHref = (udid: string) => `#${encodeURIComponent(udid)}`;

interface More {
  inService?: { state: string; layer?: string; since: number; from: number; hours: Array<Record<string, number>> };
  quarantine?: { since: number; until: number; reason?: string; layer?: string; evidence?: string[]; release: string };
  incidents?: Array<{ at: number; kind: string; file: string; cause?: string }>;
  events?: Array<{ at: number; kind: string; text: string }>;
}

const LAYERS = ['phone', 'port', 'hub', 'controller', 'host', 'adb', 'cloud', 'readiness'];
const layerOf = (slot: string) => (slot === 'in_service' ? 'in' : (slot.split(':')[1] ?? 'phone'));

/** The last 24 hours, an hour a cell, each split by where its minutes went. */
function strip(s: NonNullable<More['inService']>) {
  let all = 0;
  let inService = 0;
  const hours = s.hours.map((hour, i) => {
    const parts = Object.entries(hour).map(([slot, min]) => [layerOf(slot), min] as const);
    const counted = parts.reduce((a, [, m]) => a + m, 0);
    all += counted;
    inService += hour.in_service ?? 0;
    const title = `${hhmm(s.from + i * 3_600_000)}: ${parts.map(([l, m]) => `${l === 'in' ? 'in service' : `out (${l})`} ${m} min`).join(', ') || 'not counted'}`;
    const cell = h('span', { title });
    for (const [layer, min] of [...parts, ['none', Math.max(0, 60 - counted)] as const]) {
      const seg = h('i', { class: `l-${layer}` });
      seg.style.flexGrow = String(min);
      cell.append(seg);
    }
    return cell;
  });
  const share = all ? `${((100 * inService) / all).toFixed(1)}% in service over the last 24 hours` : 'nothing counted in the last 24 hours';
  return h('div', { class: 'strip', role: 'img', 'aria-label': share, title: share }, ...hours);
}

function stateLine(row: DeviceRow, more: More) {
  const ready = row.features?.readiness;
  const out = more.inService && more.inService.state !== 'in_service' ? more.inService : undefined;
  return h(
    'p',
    {},
    h('span', { class: row.up ? '' : 'bad' }, `${row.state} · ${row.status}`),
    ready !== undefined && h('span', { class: ready.startsWith('not ready') ? 'warn' : '' }, ` · ${ready}`),
    out && ` · out since ${hhmm(out.since)}${out.layer ? `, blamed on its ${out.layer}` : ''}`,
  );
}

function tile(row: DeviceRow, more: More, trouble: number) {
  const battery = [row.batteryPercent !== undefined && `battery ${row.batteryPercent}%`, row.batteryCelsius !== undefined && `${row.batteryCelsius}°C`]
    .filter(Boolean)
    .join(', ');
  const wear = row.wear as { daysLeft?: number; reason?: string } | undefined;
  const q = more.quarantine;
  const incident = more.incidents?.[0];
  return h(
    'li',
    { class: `tile t${trouble}` },
    h('h4', {}, h('a', { href: phoneHref(row.udid) }, `${row.model ?? row.platform} ${row.udid}`)),
    h('p', { class: 'port' }, [row.serial !== row.udid && row.serial, row.usb !== undefined && `port ${row.usb}`, row.hubName].filter(Boolean).join(' · ')),
    stateLine(row, more),
    q && h('p', { class: 'bad' }, `quarantined ${hhmm(q.since)} to ${hhmm(q.until)}: ${q.reason ?? 'kept failing'}; `, h('code', {}, q.release)),
    incident && h('p', { class: trouble === 2 ? 'bad' : '' }, `incident: ${incident.kind} at ${hhmm(incident.at)}`),
    battery && h('p', {}, battery),
    wear?.daysLeft !== undefined && h('p', { class: wear.daysLeft <= 30 ? 'warn' : '' }, `wear: ${wear.reason ?? 'due'} in ${wear.daysLeft} days`),
    more.inService && strip(more.inService),
  );
}

function hostLine(host: PageHost): Child[] {
  return [
    `${host.node} · agent ${host.agentVersion}`,
    host.lastReportAt !== undefined && ` · last report ${when(host.lastReportAt)}`,
    host.reportFailedAt !== undefined &&
      h('span', { class: 'bad' }, ` · the last report failed at ${when(host.reportFailedAt)}; the cloud has not taken one since`),
    !host.healthy && h('span', { class: 'bad' }, ` · unhealthy: ${host.problems.join('; ')}`),
  ];
}

function legend() {
  return h(
    'ul',
    { class: 'legend', 'aria-label': 'colours of the 24-hour strips' },
    h('li', {}, h('i', { class: 'l-in' }), 'in service'),
    ...LAYERS.map((l) => h('li', {}, h('i', { class: `l-${l}` }), `out: ${l}`)),
    h('li', {}, h('i', { class: 'l-none' }), 'not counted'),
  );
}

function rackView(page: RackPage): Child[] {
  const tiles = (rows: number[]) => h('ul', { class: 'tiles' }, ...rows.map((i) => tile(page.rows[i]!, page.more[i] as More, page.trouble[i] ?? 0)));
  return [
    h('h2', {}, page.attention.length ? `Needs someone (${page.attention.length})` : `All ${page.rows.length} phones in service`),
    page.attention.length > 0 && tiles(page.attention),
    ...page.rack.flatMap((bus) => [
      h('h2', {}, `USB bus ${bus.bus}`),
      ...bus.hubs.flatMap((hub) => [h('h3', {}, `hub ${hub.hub}${hub.name ? `: ${hub.name}` : ''}`), tiles(hub.ports.flatMap((p) => p.rows))]),
    ]),
    ...page.groups.flatMap((g) => [h('h2', {}, g.title), tiles(g.rows)]),
    page.rows.length === 0 && h('p', {}, 'No phones in the last report.'),
    legend(),
  ];
}

function value(v: unknown) {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function phoneView(page: PhonePage): Child[] {
  const { row } = page;
  const more = page.more as More;
  const facts = Object.entries(row).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, value(v))]);
  return [
    h('p', {}, h('a', { href: '#' }, '← the rack')),
    h('h2', {}, `${row.model ?? row.platform} ${row.udid}`),
    stateLine(row, more),
    more.inService && strip(more.inService),
    h('h3', {}, 'What to do'),
    h('ul', {}, ...page.todo.map((t) => h('li', {}, t))),
    more.quarantine &&
      h(
        'p',
        { class: 'bad' },
        `Quarantined ${when(more.quarantine.since)} to ${when(more.quarantine.until)}${more.quarantine.layer ? `, blamed on its ${more.quarantine.layer}` : ''}: `,
        h('code', {}, more.quarantine.release),
      ),
    more.quarantine?.evidence?.length ? h('ul', {}, ...more.quarantine.evidence.map((e) => h('li', {}, e))) : false,
    h('h3', {}, 'Incidents'),
    more.incidents?.length
      ? h('ul', {}, ...more.incidents.map((i) => h('li', {}, `${when(i.at)} ${i.kind}${i.cause ? `: ${i.cause}` : ''} (${i.file})`)))
      : h('p', {}, 'None kept.'),
    h('h3', {}, 'The last events, newest first'),
    more.events?.length
      ? h(
          'table',
          {},
          h('thead', {}, h('tr', {}, h('th', {}, 'when'), h('th', {}, 'what'), h('th', {}, 'said'))),
          h('tbody', {}, ...more.events.toReversed().map((e) => h('tr', {}, h('td', {}, when(e.at)), h('td', {}, e.kind), h('td', {}, e.text)))),
        )
      : h('p', {}, 'None heard since the daemon started.'),
    h('h3', {}, 'Facts'),
    h('dl', {}, ...facts),
  ];
}

/** The phone the hash names, or undefined for the rack. */
function phoneOf(hash: string): string | undefined {
  try {
    return hash.length > 1 ? decodeURIComponent(hash.slice(1)) : undefined;
  } catch {
    return undefined;
  }
}

function start() {
  const main = document.getElementById('main')!;
  let wake = (): void => undefined;
  addEventListener('hashchange', () => wake());
  const url = () => {
    const udid = phoneOf(location.hash);
    return udid === undefined ? 'api/devices' : `api/phone?udid=${encodeURIComponent(udid)}`;
  };
  const ask = async (target: string, etag: string | undefined): Promise<Answer> => {
    const res = await fetch(target, { cache: 'no-store', headers: etag ? { 'if-none-match': etag } : {}, signal: AbortSignal.timeout(ASK_MS) });
    if (res.status === 304) return {};
    if (res.status === 404 && target !== 'api/devices') return { body: null };
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return { etag: res.headers.get('etag') ?? undefined, body: await res.json() };
  };
  const show = (body: unknown) => {
    // Where the keyboard was stays where it was.
    const focused = document.activeElement?.getAttribute('href');
    const page = body as RackPage | PhonePage | null;
    document.getElementById('host')!.replaceChildren(...drawn(page ? hostLine(page.host) : []));
    if (page === null) main.replaceChildren(h('p', {}, h('a', { href: '#' }, '← the rack')), h('p', {}, 'No phone of this udid in the last report.'));
    else if ('row' in page) main.replaceChildren(...drawn(phoneView(page)));
    else main.replaceChildren(...drawn(rackView(page)));
    document.title =
      page && 'row' in page ? `${page.row.udid} · device-agent` : `${page?.attention.length ? `(${page.attention.length}) ` : ''}device-agent rack`;
    if (focused) main.querySelector<HTMLElement>(`a[href="${CSS.escape(focused)}"]`)?.focus();
  };
  const lostLine = document.getElementById('lost')!;
  const lost = (since: number | undefined) => {
    lostLine.hidden = since === undefined;
    lostLine.textContent = since === undefined ? '' : `Lost the daemon: no answer since ${when(since)}. What this page shows is from then; it keeps asking.`;
    document.body.classList.toggle('stale', since !== undefined);
  };
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  void follow(url, ask, show, lost, { now: () => Date.now(), sleep });
}

if (typeof document !== 'undefined') start();
