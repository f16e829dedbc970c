import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDefaultRoute } from '../../src/machine/route.js';

const fixture = (name: string): string => readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8');

describe('parseDefaultRoute', () => {
  it('finds the default route of recorded tables', () => {
    expect(parseDefaultRoute(fixture('proc-net-route-vm.txt'))).toBe('eth0');
    expect(parseDefaultRoute(fixture('proc-net-route-container.txt'))).toBe('eth0');
  });

  it('takes the lowest metric of several default routes, and only routes that are up', () => {
    const table = [
      'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT',
      'wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0',
      'tun0\t00000000\t00000000\t0000\t0\t0\t50\t00000000\t0\t0\t0',
      'eth0\t00000000\tFE01A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0',
      'eth0\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0',
    ].join('\n');
    expect(parseDefaultRoute(table)).toBe('eth0');
  });

  it('is undefined without a default route (an isolated host) or with no table', () => {
    expect(
      parseDefaultRoute(
        'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\neth0\t0002A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n',
      ),
    ).toBeUndefined();
    expect(parseDefaultRoute('')).toBeUndefined();
  });
});
