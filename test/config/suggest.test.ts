import { describe, expect, it } from 'vitest';
import { closest, distance } from '../../src/config/suggest.js';
import { knownVariableNames } from '../../src/config/environment.js';

const variables = knownVariableNames();

describe('closest', () => {
  it('finds the variable a newcomer meant (the typos of issue 25)', () => {
    const meant = (typed: string) => closest(typed, variables, 'DEVICE_AGENT_');
    expect(meant('DEVICE_AGENT_BASEURL')).toBe('DEVICE_AGENT_BASE_URL');
    expect(meant('DEVICE_AGENT_APIKEY')).toBe('DEVICE_AGENT_API_KEY');
    expect(meant('DEVICE_AGENT_USER')).toBe('DEVICE_AGENT_USERNAME');
    expect(meant('DEVICE_AGENT_LOGLEVEL')).toBe('DEVICE_AGENT_LOG_LEVEL');
    expect(meant('DEVICE_AGENT_SHEDULE')).toBe('DEVICE_AGENT_SCHEDULE');
    expect(meant('DEVICE_AGENT_JITTER_SECOND')).toBe('DEVICE_AGENT_JITTER_SECONDS');
    expect(meant('DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MB')).toBe('DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MIB');
  });

  it('prefers a close name over a short one that merely starts the same', () => {
    expect(closest('DEVICE_AGENT_IOS_TIMEOUT_SECOND', variables, 'DEVICE_AGENT_')).toBe('DEVICE_AGENT_IOS_TIMEOUT_SECONDS');
  });

  it('finds flags and values: dashes, swapped letters, a tail too many', () => {
    const flags = ['--dry-run', '--json', '--config', '--log-level', '--log-format', '--help'];
    expect(closest('--dryrun', flags, '--')).toBe('--dry-run');
    expect(closest('--jsno', flags, '--')).toBe('--json');
    expect(closest('--log-levle', flags, '--')).toBe('--log-level');
    expect(closest('warning', ['trace', 'debug', 'info', 'warn', 'error'])).toBe('warn');
  });

  it('suggests nothing for a name unlike any', () => {
    expect(closest('DEVICE_AGENT_FOO', variables, 'DEVICE_AGENT_')).toBeUndefined();
    expect(closest('--verbose', ['--dry-run', '--json', '--config'], '--')).toBeUndefined();
  });
});

describe('distance', () => {
  it('counts inserts, deletes, substitutions and swaps of neighbours', () => {
    expect(distance('', 'abc')).toBe(3);
    expect(distance('abc', 'abc')).toBe(0);
    expect(distance('abc', 'abd')).toBe(1);
    expect(distance('abc', 'acb')).toBe(1);
    expect(distance('kitten', 'sitting')).toBe(3);
  });
});
