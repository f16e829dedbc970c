import type { NetworkInterfaceInfo } from 'node:os';
import type { MachineNetwork } from '../cloud/types.js';

/**
 * Picks the address the host is reached by: the default-route interface's IPv4 address, else its IPv6, else the first
 * external address, else loopback. Pure: the interface table and the default interface name are passed in.
 */
export function pickNetwork(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>, defaultName: string | undefined): MachineNetwork {
  const all = Object.entries(interfaces).flatMap(([name, list]) => (list ?? []).map((info) => ({ name, info })));
  const rank = (e: { name: string; info: NetworkInterfaceInfo }) =>
    (e.name === defaultName ? 0 : 4) + (e.info.internal ? 8 : 0) + (e.info.family === 'IPv4' ? 0 : 1) + (e.info.address.startsWith('fe80') ? 2 : 0);
  const best = all.sort((a, b) => rank(a) - rank(b))[0]?.info;
  if (!best) return { address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', mac: '00:00:00:00:00:00', cidr: '127.0.0.1/8', internal: true };
  return {
    address: best.address,
    netmask: best.netmask,
    family: best.family,
    mac: best.mac,
    cidr: best.cidr ?? `${best.address}/${best.netmask}`,
    internal: best.internal,
  };
}
