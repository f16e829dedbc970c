import { BROWSERS, installedBrowsers, parsePackages } from '../parsers/packages.js';

const BROWSER_PACKAGES = new Set(Object.keys(BROWSERS));
import type { Probe } from './types.js';

export const packages: Probe<Set<string>> = {
  section: 'packages',
  tier: 'slow',
  command: 't pm list packages',
  fields: ['installedBrowsers'],
  // A failed or interrupted `pm` (no package: lines) is not "no browsers".
  good: (text) => /^package:[A-Za-z0-9_.]+\s*$/m.test(text),
  // The browsers, plus one other package so that a device without any
  // browser still reads as "none" rather than as a failed pm.
  shrink: (text) => {
    const all = [...parsePackages(text)];
    const kept = all.filter((pkg) => BROWSER_PACKAGES.has(pkg));
    const other = all.find((pkg) => !BROWSER_PACKAGES.has(pkg));
    if (other !== undefined) kept.push(other);
    return kept.map((pkg) => `package:${pkg}`).join('\n');
  },
  note: 'installed browsers',
  parse: (text) => {
    const all = parsePackages(text);
    // An empty list from a failed `pm` is not "no browsers".
    return all.size === 0 ? undefined : all;
  },
  fill(info, all) {
    if (all) info.installedBrowsers = installedBrowsers(all);
  },
};
