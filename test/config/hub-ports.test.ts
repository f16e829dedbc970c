import { describe, expect, it } from 'vitest';
import { checkHubNames, checkHubPorts, hubNamesOf, hubPortOf, hubPortsOf, parseHubPort } from '../../src/config/hub-ports.js';

describe('hubPorts', () => {
  it("reads ID=HUB:PORT with uhubctl's hub locations", () => {
    expect(parseHubPort('R58M12AB=1-1.4:3')).toEqual({ id: 'R58M12AB', place: { hub: '1-1.4', port: 3 } });
    expect(parseHubPort('00008110-001A2D3C0E91801E=2:1')).toEqual({ id: '00008110-001A2D3C0E91801E', place: { hub: '2', port: 1 } });
    expect(parseHubPort('127.0.0.1:5555=3-2:12')).toEqual({ id: '127.0.0.1:5555', place: { hub: '3-2', port: 12 } });
  });

  it('refuses entries that are not ID=HUB:PORT, a port out of range, and an id named twice', () => {
    for (const bad of ['R58M12AB', 'R58M12AB=1-1.4', 'R58M12AB=hub:3', '=1-1:3', 'R58 M12=1-1:3', 'R58M12AB=1-1.4:0', 'R58M12AB=1-1.4:256', 'R58M12AB=1-:2']) {
      expect(checkHubPorts([bad]), bad).toMatch(/must be ID=HUB:PORT/);
    }
    expect(checkHubPorts(['A=1-1:1', 'B=1-1:2'])).toBeUndefined();
    expect(checkHubPorts(['A=1-1:1', 'A=1-1:2'])).toBe('names A more than once');
  });

  it("finds a phone's port by its udid first, then by its adb serial", () => {
    const ports = hubPortsOf(['UDID1=1-1:1', '127.0.0.1:5555=1-1:2', 'SERIAL3=2-1.3:4']);
    expect(hubPortOf(ports, 'UDID1', '127.0.0.1:5555')).toEqual({ hub: '1-1', port: 1 });
    expect(hubPortOf(ports, 'OTHER', '127.0.0.1:5555')).toEqual({ hub: '1-1', port: 2 });
    expect(hubPortOf(ports, 'SERIAL3', 'SERIAL3')).toEqual({ hub: '2-1.3', port: 4 });
    expect(hubPortOf(ports, 'NONE', 'NONE')).toBeUndefined();
  });
});

describe('hubNames', () => {
  it("names a hub by the kernel's location of it, a root hub too; the name trimmed, commas and all", () => {
    const names = hubNamesOf(['1-1.4=rack B, shelf 2, left hub', 'usb3= bench ', '2-1=x'.repeat(1)]);
    expect([...names]).toEqual([
      ['1-1.4', 'rack B, shelf 2, left hub'],
      ['usb3', 'bench'],
      ['2-1', 'x'],
    ]);
    expect(checkHubNames(['1-1.4=rack B, shelf 2, left hub', 'usb3=bench'])).toBeUndefined();
  });

  it('refuses an entry without a hub location, without a name, or with a name past 80 characters', () => {
    for (const bad of ['rack B', '1-1.4', '1-1.4=', '1-1.4=  ', 'hub=rack B', '1-1.4:2=rack B', `1-1.4=${'n'.repeat(81)}`]) {
      expect(checkHubNames([bad]), bad).toMatch(/must be HUB=NAME/);
    }
    expect(checkHubNames([`1-1.4=${'n'.repeat(80)}`])).toBeUndefined();
  });
});
