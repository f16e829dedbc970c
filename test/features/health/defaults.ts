import { readFileSync } from 'node:fs';
import type { HealthSettings } from '../../../src/features/health/rules.js';

/** The health.* defaults the agent ships (config/default.json), so the tests check the real ones. */
export const shippedHealth: HealthSettings = (
  JSON.parse(readFileSync(new URL('../../../config/default.json', import.meta.url), 'utf8')) as { health: HealthSettings }
).health;
