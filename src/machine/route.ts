// The interface of the host's default route, from /proc/net/route: the kernel's IPv4 routing table, one route a line
// (Iface, Destination, Gateway, Flags, RefCnt, Use, Metric, Mask, ...; addresses in hex). The default route has
// destination and mask 0; RTF_UP (flag 0x1) says it is in use; the lowest metric wins, as the kernel picks it. Pure:
// text in.

const RTF_UP = 0x1;

export function parseDefaultRoute(text: string) {
  let best: { iface: string; metric: number } | undefined;
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 8 || f[0] === 'Iface' || f[0]!.startsWith('#')) continue;
    const [iface, destination, , flags, , , metric, mask] = f as [string, string, string, string, string, string, string, string];
    if (destination !== '00000000' || mask !== '00000000') continue;
    if ((Number.parseInt(flags, 16) & RTF_UP) === 0) continue;
    const m = Number(metric);
    if (!best || m < best.metric) best = { iface, metric: Number.isFinite(m) ? m : Infinity };
  }
  return best?.iface;
}
