import { describe, expectTypeOf, it } from 'vitest';
import type { Support } from '../../src/cloud/types.js';
import type { Settings } from '../../src/config/schema.js';
import type { HealthSettings } from '../../src/features/health/rules.js';
import type { WearSettings } from '../../src/features/wear/judge.js';

// Settings is derived from the schema; these pin what the derivation gives,
// so a change of the schema shows in the types the code uses.
describe('Settings, derived from the schema', () => {
  it('has each key with the type of its field, optional where the field is', () => {
    expectTypeOf<Settings['schedule']>().toEqualTypeOf<string>();
    expectTypeOf<Settings['jitterSeconds']>().toEqualTypeOf<number>();
    expectTypeOf<Settings['addedToCloud']>().toEqualTypeOf<boolean>();
    // Unset, true (asked for) and false (off) mean three things.
    expectTypeOf<Settings['ios']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<Settings['hiddenDevices']>().toEqualTypeOf<string[]>();
    expectTypeOf<Settings>().toHaveProperty('apiKey').toEqualTypeOf<string | undefined>();
    expectTypeOf<{ [K in keyof Settings]-?: Record<never, never> extends Pick<Settings, K> ? K : never }[keyof Settings]>().toEqualTypeOf<
      | 'apiKey'
      | 'apiKeyFile'
      | 'nodeId'
      | 'stateDir'
      | 'adbServerSocket'
      | 'ios'
      | 'usbmuxdSocketAddress'
      | 'httpsProxy'
      | 'httpProxy'
      | 'noProxy'
      | 'caFile'
      | 'statusWebConfigFile'
    >();
  });

  it('nests dotted keys: support.* is the cloud Support object, health.* the rules’ settings', () => {
    // Assignable both ways: the same shape (the derived type is built by mapping, which toEqualTypeOf tells apart).
    expectTypeOf<Settings['support']>().toExtend<Support>();
    expectTypeOf<Support>().toExtend<Settings['support']>();
    expectTypeOf<Settings['health']>().toExtend<HealthSettings>();
    expectTypeOf<HealthSettings>().toExtend<Settings['health']>();
    expectTypeOf<keyof Settings['health']>().toEqualTypeOf<keyof HealthSettings>();
    expectTypeOf<Settings['wear']>().toExtend<WearSettings>();
    expectTypeOf<WearSettings>().toExtend<Settings['wear']>();
    expectTypeOf<keyof Settings['wear']>().toEqualTypeOf<keyof WearSettings>();
  });
});
