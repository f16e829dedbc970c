import { parsePackages } from '../parsers/packages.js';
import type { Probe } from './types.js';

export const packages: Probe = {
  section: 'packages',
  tier: 'slow',
  command: 't pm list packages',
  fields: ['installedBrowsers'],
  filled: (d) => d.installedBrowsers !== undefined,
  // A failed or interrupted `pm` (no package: lines) is not "no browsers".
  good: (text) => parsePackages(text).size > 0,
  note: 'installed browsers',
};
