import { loadSettings } from '../../../src/config/load.js';
import type { HealthSettings } from '../../../src/features/health/rules.js';

/** The health.* defaults the agent ships (its fragment, src/features/health/settings.ts), so the tests check the real ones. */
export const shippedHealth: HealthSettings = loadSettings({ env: {} }).health;
