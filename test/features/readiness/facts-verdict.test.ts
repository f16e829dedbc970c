// The verdict on the facts a source publishes (src/devices/readiness-facts.ts):
// the lockdown checks, judged as the shell inventory's are, and the two
// kinds of checks kept apart. The facts are those src/platforms/ios/readiness.ts
// makes of the recorded lockdown answers (test/platforms/ios/fixtures/readiness/SOURCES.md).
import { describe, expect, it } from 'vitest';
import { parseReadinessChecks, READINESS_CHECK_NAMES, readinessSettings } from '../../../src/features/readiness/settings.js';
import type { FactsReading } from '../../../src/features/readiness/checks.js';
import { inRange } from '../../../src/devices/readiness-grammar.js';
import { failsAppium } from '../../../src/features/readiness/support.js';
import { appiumOff } from '../../../src/cloud/types.js';
import { judge, verdictCell, verdictMessage } from '../../../src/features/readiness/verdict.js';
import { withNotes } from '../../../src/cloud/device-message.js';
import { notPairedDeviceInfo } from '../../../src/platforms/ios/inventory.js';

const DEFAULT = parseReadinessChecks(readinessSettings['readiness.checks'].default);
const ALL = parseReadinessChecks([...READINESS_CHECK_NAMES]);
const facts = (f: Record<string, string>): FactsReading => ({ facts: new Map(Object.entries(f)) });

describe('readiness on published facts', () => {
  it('Developer Mode off: not ready, named with its key and what a person does', () => {
    const verdict = judge(facts({ paired: 'true', developerMode: 'false', osVersion: '17.4.1' }), DEFAULT, 'Apple');
    expect(verdict.ready).toBe(false);
    expect(verdict.failed.map((f) => f.check.id)).toEqual(['developerMode']);
    expect(verdictMessage(verdict)).toBe(
      "not ready for automation (1 of the lab's checks failed): Developer Mode is off (DeveloperModeStatus), expected on: " +
        'Settings > Privacy & Security > Developer Mode on, restart when asked, then confirm "Turn On" after the restart (a person must do it: the phone asks for its passcode)',
    );
    expect(verdictCell(verdict)).toBe('not ready: developerMode');
  });

  it('the shell checks do not apply to a facts reading, nor the fact checks to a shell one: neither failed nor unread', () => {
    const verdict = judge(facts({ paired: 'true', developerMode: 'true', osVersion: '16.3.1' }), ALL, 'Apple');
    // Unlocked, the phone does not tell whether it has a passcode: unread, and so not called ready.
    expect(verdict).toEqual({ ready: false, failed: [], unread: ['passcode'] });
    expect(judge(facts({ paired: 'true', developerMode: 'true', osVersion: '16.3.1', passcode: 'true' }), ALL, 'Apple')).toEqual({
      ready: true,
      failed: [],
      unread: [],
    });
    const shell = judge({ settings: new Map([['global', new Map()]]), props: new Map() }, ALL, 'Google');
    expect(shell.unread.some((id) => ['paired', 'developerMode', 'passcode', 'osVersion'].includes(id))).toBe(false);
  });

  it('a domain lockdown refused (no developerMode fact) is unknown, never a failure; before iOS 16 there is no Developer Mode to read', () => {
    // iOS 17: Developer Mode exists, lockdown did not say: unread.
    const refused = judge(facts({ paired: 'true', osVersion: '17.4.1', passcode: 'true', developerImage: 'true' }), DEFAULT, 'Apple');
    expect(refused).toMatchObject({ ready: false, failed: [], unread: ['developerMode'] });
    // iOS 10: the check is not the phone's (MissingValue is all it can answer), as a Xiaomi toggle on a Pixel.
    expect(judge(facts({ paired: 'true', osVersion: '10.2', passcode: 'true' }), DEFAULT, 'Apple')).toEqual({ ready: true, failed: [], unread: [] });
    // No version known: the check may be the phone's, so unread.
    expect(judge(facts({ paired: 'true', passcode: 'true' }), DEFAULT, 'Apple').unread).toEqual(['developerMode', 'developerImage', 'osVersion']);
  });

  it("the developer disk image from iOS 17: not mounted is not ready, with how to mount it, Appium off; not read is unread; before 17 not the phone's check", () => {
    const off = judge(facts({ paired: 'true', developerMode: 'true', osVersion: '17.4.1', passcode: 'true', developerImage: 'false' }), DEFAULT, 'Apple');
    expect(off.failed.map((f) => f.check.id)).toEqual(['developerImage']);
    expect(verdictMessage(off)).toContain(
      'the developer disk image is off (mobile_image_mounter LookupImage), expected on: mount the personalized developer disk image: `ios image auto`',
    );
    expect(failsAppium(off)).toBe(true);
    expect(judge(facts({ paired: 'true', developerMode: 'true', osVersion: '26.1', passcode: 'true' }), DEFAULT, 'Apple').unread).toEqual(['developerImage']);
    expect(judge(facts({ paired: 'true', developerMode: 'true', osVersion: '16.7.2', passcode: 'true' }), DEFAULT, 'Apple')).toEqual({
      ready: true,
      failed: [],
      unread: [],
    });
  });

  it('not paired: not ready, and Appium is disabled on it, as with Developer Mode off', () => {
    const verdict = judge(facts({ paired: 'false' }), DEFAULT, undefined);
    expect(verdict.failed.map((f) => f.check.id)).toEqual(['paired']);
    expect(failsAppium(verdict)).toBe(true);
    const devOff = judge(facts({ paired: 'true', developerMode: 'false' }), DEFAULT, undefined);
    expect(failsAppium(devOff)).toBe(true);
    // A source that gives no flags (lockdown's inventory) gets this one, which the report ORs with the host's.
    expect(appiumOff(undefined)).toMatchObject({ appiumDisabled: true, setTimeZoneDisabled: false });
    expect(failsAppium(judge(facts({ paired: 'true', developerMode: 'true' }), DEFAULT, undefined))).toBe(false);
  });

  it("not paired: the device's message says the pairing fix once (the source's own words), the log line and doctor still give it", () => {
    const verdict = judge(facts({ paired: 'false' }), DEFAULT, undefined);
    const message = withNotes(notPairedDeviceInfo('00008110-000A1C2E3E4F801E'), [verdictMessage(verdict, true)]).message!;
    expect(message.split('idevicepair pair').length - 1).toBe(1);
    expect(message).toContain('paired and trusted is off (pair record and StartSession), expected on: what to do is said at the start of this message');
    expect(verdictMessage(verdict)).toContain('then run `idevicepair pair` on the host');
    // A check whose fix no source message gives keeps it in the device's message too.
    expect(verdictMessage(judge(facts({ paired: 'true', developerMode: 'false' }), DEFAULT, undefined), true)).toContain(
      'Developer Mode on, restart when asked',
    );
  });

  it('passcode: not in the default baseline (lockdown tells it only while the phone is locked): an unlocked iPhone with every default check met is ready', () => {
    expect(DEFAULT.has('passcode')).toBe(false);
    // Unlocked: PasswordProtected false, so no passcode fact (src/platforms/ios/readiness.ts).
    expect(judge(facts({ paired: 'true', developerMode: 'true', developerImage: 'true', osVersion: '17.4.1' }), DEFAULT, undefined)).toEqual({
      ready: true,
      failed: [],
      unread: [],
    });
    // A lab that adds it: an unlocked phone is unread for it, never ready.
    const added = parseReadinessChecks([...DEFAULT.keys(), 'passcode']);
    expect(judge(facts({ paired: 'true', developerMode: 'true', developerImage: 'true', osVersion: '17.4.1' }), added, undefined)).toEqual({
      ready: false,
      failed: [],
      unread: ['passcode'],
    });
  });

  it('passcode: a lab that wants none fails a phone found locked behind one; one that wants one takes a phone found locked', () => {
    expect(
      judge(facts({ paired: 'true', developerMode: 'true', osVersion: '17.4.1', passcode: 'true' }), parseReadinessChecks(['passcode']), undefined).ready,
    ).toBe(true);
    const none = parseReadinessChecks(['passcode=false']);
    expect(verdictMessage(judge(facts({ passcode: 'true' }), none, undefined))).toContain('a passcode is on (PasswordProtected), expected off');
  });

  it("osVersion against the lab's range of the host's tools", () => {
    const lab = parseReadinessChecks(['osVersion=12..16']);
    expect(judge(facts({ osVersion: '16.7.2' }), lab, undefined).ready).toBe(true);
    const v17 = judge(facts({ osVersion: '17.4.1' }), lab, undefined);
    expect(verdictMessage(v17)).toContain('OS version is 17.4.1 (ProductVersion), expected 12..16');
    expect(judge(facts({ osVersion: '9.3.5' }), lab, undefined).ready).toBe(false);
    // The default takes every version this agent's lockdown reads.
    expect(judge(facts({ osVersion: '9.3.5' }), DEFAULT, undefined).failed).toEqual([]);
  });

  it('the range: either end optional, a bound covering its minor versions, an odd one never within', () => {
    expect(inRange('16.3.1', '16..16')).toBe(true);
    expect(inRange('16.3.1', '16.4..')).toBe(false);
    expect(inRange('17.0', '..16')).toBe(false);
    expect(inRange('15.8', '..')).toBe(true);
    expect(inRange('16.3.1', '16.3.1..16.3.1')).toBe(true);
    expect(inRange('beta', '9..')).toBe(false);
    expect(inRange('16.0', 'x..y')).toBe(false);
  });
});
