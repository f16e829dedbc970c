// The hub port behind each phone, as the operator maps it: `ID=HUB:PORT` (ID a udid or adb serial, HUB as uhubctl names
// it, `1-1.4`). adb's usb path says where a phone is, not which hub can switch its power: only the operator knows.

/** A hub and one of its ports, as uhubctl's `-l HUB -p PORT` take them. */
export interface HubPort {
  hub: string;
  port: number;
}

const ENTRY = /^([^\s=]+)=(\d+(?:-\d+(?:\.\d+)*)?):(\d{1,3})$/;

/** The entry's device id and place, or the problem with it. */
export function parseHubPort(entry: string): { id: string; place: HubPort } | { problem: string } {
  const m = ENTRY.exec(entry);
  const port = Number(m?.[3]);
  if (!m || port < 1 || port > 255) return { problem: `must be ID=HUB:PORT (e.g. R58M12AB=1-1.4:3), got ${JSON.stringify(entry)}` };
  return { id: m[1]!, place: { hub: m[2]!, port } };
}

export function checkHubPorts(value: string[]) {
  const problems = value.map(parseHubPort).flatMap((p) => ('problem' in p ? [p.problem] : []));
  if (problems.length) return problems.join('; ');
  const ids = value.map((v) => v.slice(0, v.indexOf('=')));
  const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
  return twice.length ? `names ${[...new Set(twice)].join(', ')} more than once` : undefined;
}

/** The mapping, by udid or serial; entries that do not parse are left out (the settings check refuses them first). */
export function hubPortsOf(entries: readonly string[]): ReadonlyMap<string, HubPort> {
  return new Map(entries.map(parseHubPort).flatMap((p) => ('id' in p ? [[p.id, p.place] as const] : [])));
}

/** The port behind a device: its udid's entry, else its serial's. */
export function hubPortOf(ports: ReadonlyMap<string, HubPort>, udid: string, serial: string) {
  return ports.get(udid) ?? ports.get(serial);
}

// What a lab calls its hubs: `HUB=NAME` (HUB as uhubctl and the kernel name it, `1-1.4`), shown by `list` and the status page.
const NAMED = /^(\d+-\d+(?:\.\d+)*|usb\d+)=(.{1,80})$/;

export function checkHubNames(value: string[]) {
  const bad = value.filter((v) => !NAMED.exec(v)?.[2]!.trim());
  return bad.length
    ? `must be HUB=NAME entries (e.g. "1-1.4=rack B shelf 2, left hub", a name of 80 characters at most), got ${bad.map((b) => JSON.stringify(b)).join(', ')}`
    : undefined;
}

/** The hubs' names by hub; an entry that does not parse is left out (the settings check refuses it first). */
export function hubNamesOf(entries: readonly string[]): ReadonlyMap<string, string> {
  return new Map(
    entries.flatMap((e) => {
      const m = NAMED.exec(e);
      return m ? [[m[1]!, m[2]!.trim()] as const] : [];
    }),
  );
}
