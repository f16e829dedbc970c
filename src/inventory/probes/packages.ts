import type { Probe } from './types.js';

export const packages: Probe = {
  section: 'packages',
  tier: 'slow',
  command: 't pm list packages',
  fields: ['installedBrowsers'],
  note: 'installed browsers',
};
