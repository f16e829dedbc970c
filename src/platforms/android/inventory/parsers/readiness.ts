// Parses the readiness sections (probes/readiness.ts), alone or read together: the settings a lab's
// baseline judges, as `settings list NAMESPACE` prints them (key=value),
// cut to the keys asked for, each namespace between its `namespace:NAME`
// line and its `status:NAME=N` line; the keyguard's `secure=` line of
// `dumpsys window policy`; and a few system properties as `prop:NAME=VALUE`.
// Pure: the feature that judges the values (src/features/readiness/) reads
// this, never the text.

import type { ReadinessReading } from '../../../readiness.js';

export type { ReadinessReading };

const SETTING = /^([A-Za-z0-9_.:-]+)=(.*)$/;

export function parseReadiness(text: string): ReadinessReading | undefined {
  const settings = new Map<string, Map<string, string>>();
  const props = new Map<string, string>();
  let keyguardSecure: boolean | undefined;
  let namespace: string | undefined;
  let values = new Map<string, string>();
  let any = false;
  for (const raw of text.replace(/\r/g, '').split('\n')) {
    const line = raw.trim();
    if (line.startsWith('namespace:')) {
      namespace = line.slice('namespace:'.length);
      values = new Map();
      continue;
    }
    const status = /^status:([a-z]+)=(\d+)$/.exec(line);
    if (status) {
      // Only a list that ended well says which keys are unset.
      if (namespace !== undefined && status[1] === namespace && status[2] === '0') settings.set(namespace, values);
      any = true;
      namespace = undefined;
      continue;
    }
    const secure = /^secure=(true|false)$/.exec(line);
    if (secure) {
      keyguardSecure = secure[1] === 'true';
      any = true;
      continue;
    }
    if (line.startsWith('prop:')) {
      const prop = SETTING.exec(line.slice('prop:'.length));
      if (prop && prop[2]!.trim() !== '') props.set(prop[1]!, prop[2]!.trim());
      any = true;
      continue;
    }
    const setting = SETTING.exec(line);
    if (setting && namespace !== undefined) values.set(setting[1]!, setting[2]!);
  }
  return any ? { settings, keyguardSecure, props } : undefined;
}
