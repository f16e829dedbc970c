import type { Probe } from './types.js';

export const packages: Probe = {
  section: 'packages',
  tier: 'slow',
  command: 't pm list packages',
  fields: ['installedBrowsers'],
  filled: (d) => d.installedBrowsers !== undefined,
  note: 'installed browsers',
};
