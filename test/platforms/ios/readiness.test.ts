// The readiness facts of an iPhone from lockdown's answers, on recorded and
// reconstructed plists (fixtures/readiness/SOURCES.md names each source).
import { readFileSync } from 'node:fs';
import * as plist from 'plist';
import { describe, expect, it } from 'vitest';
import { pairedFacts, unpairedFacts } from '../../../src/platforms/ios/readiness.js';

type Dict = Record<string, unknown>;
const fixture = (name: string): Dict => plist.parse(readFileSync(new URL(`fixtures/readiness/${name}`, import.meta.url), 'utf8')) as Dict;

const unlocked = fixture('ios-triage-9-iphone6-ios10.2-unlocked.plist');
const developerOff = fixture('amfi-developer-mode-off.plist');
const missing = fixture('amfi-missing-value.plist');

/** The amfi domain as the probe hands it on: the answer's Value under its key, nothing when lockdown answered an Error. */
const amfiOf = (answer: Dict): Dict | undefined => (answer.Error === undefined ? { [String(answer.Key)]: answer.Value } : undefined);

describe('iPhone readiness facts', () => {
  it('Developer Mode off, as lockdown answers GetValue of the amfi domain: developerMode false', () => {
    expect(developerOff.Value).toBe(false);
    expect(pairedFacts({ ProductVersion: '17.4.1', PasswordProtected: false }, amfiOf(developerOff))).toEqual({
      paired: 'true',
      developerMode: 'false',
      osVersion: '17.4.1',
    });
  });

  it('an iOS without Developer Mode (MissingValue): developerMode left out, so unknown, never failed', () => {
    expect(missing.Error).toBe('MissingValue');
    expect(pairedFacts(unlocked, amfiOf(missing))).toEqual({ paired: 'true', osVersion: '10.2' });
  });

  it('PasswordProtected false on an unlocked phone with a passcode (ios-triage #9): passcode left out, not "none"', () => {
    expect(unlocked.PasswordProtected).toBe(false);
    expect(pairedFacts(unlocked, undefined)).not.toHaveProperty('passcode');
  });

  it('PasswordProtected true (locked behind a passcode): passcode true', () => {
    expect(pairedFacts({ ...unlocked, PasswordProtected: true }, undefined)).toMatchObject({ passcode: 'true' });
  });

  it('odd values leave only their fact out', () => {
    expect(pairedFacts({ ProductVersion: '', PasswordProtected: 'yes' }, { DeveloperModeStatus: 1 })).toEqual({ paired: 'true' });
  });

  it('a phone that will not open a session: paired false, with the version it shows anyone', () => {
    expect(unpairedFacts({ ProductVersion: '16.3.1' })).toEqual({ paired: 'false', osVersion: '16.3.1' });
    expect(unpairedFacts(undefined)).toEqual({ paired: 'false' });
  });
});
