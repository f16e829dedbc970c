import { describe, expect, it } from 'vitest';
import { parseAnswer, parseRequest, refusal, requestLine } from '../../src/hub-helper/request.js';
import { peerRefusal } from '../../src/hub-helper/serve.js';

describe('hub helper requests', () => {
  it('reads off|on|cycle HUB PORT and check, and nothing else', () => {
    expect(parseRequest('cycle 1-1.4 3\n')).toEqual({ kind: 'switch', action: 'cycle', hub: '1-1.4', port: 3 });
    expect(parseRequest('off 2 1')).toEqual({ kind: 'switch', action: 'off', hub: '2', port: 1 });
    expect(parseRequest('check\n')).toEqual({ kind: 'check' });
    for (const bad of ['reset 1-1 3', 'off 1-1 0', 'off 1-1 256', 'off 1-1;rm 3', 'off 1-1 3 -d 99', 'off --help 3', '', 'on 1-1.4 3 extra'])
      expect(parseRequest(bad)).toHaveProperty('problem');
  });

  it('refuses a port the operator did not map', () => {
    const mapped = [{ hub: '1-1.4', port: 3 }];
    expect(refusal({ hub: '1-1.4', port: 3 }, mapped)).toBeUndefined();
    expect(refusal({ hub: '1-1.4', port: 4 }, mapped)).toMatch(/not in hubPorts/);
    expect(refusal({ hub: '1-1', port: 3 }, mapped)).toMatch(/not in hubPorts/);
  });

  it('answers round-trip: ok or fail WHY, then the output', () => {
    expect(parseRequest(requestLine({ kind: 'switch', action: 'on', hub: '1-2', port: 7 }))).toEqual({ kind: 'switch', action: 'on', hub: '1-2', port: 7 });
    expect(parseAnswer('ok\nSent power on request\n')).toEqual({ problem: undefined, output: 'Sent power on request\n' });
    expect(parseAnswer('fail hub 1-2 port 7 is not in hubPorts\n')).toEqual({ problem: 'hub 1-2 port 7 is not in hubPorts', output: '' });
    expect(parseAnswer('')).toEqual({ problem: 'the hub helper answered ""', output: '' });
  });
});

describe('who may ask the helper', () => {
  const names: Record<number, string> = { 61234: 'device-agent', 1000: 'alice' };
  const nameOf = (uid: number) => names[uid];
  it('root and the agent user, by the uid in the instance name (NUMBER-PID-UID); anyone else is refused with who', () => {
    expect(peerRefusal('3-4711-0', nameOf)).toBeUndefined();
    expect(peerRefusal('12-900-61234', nameOf)).toBeUndefined();
    expect(peerRefusal('5-901-1000', nameOf)).toMatch(/refused this user \(uid 1000, alice\)/);
    expect(peerRefusal('5-902-4242', nameOf)).toMatch(/refused this user \(uid 4242\)/);
    expect(peerRefusal('i', nameOf)).toMatch(/no peer credentials/);
  });
});
