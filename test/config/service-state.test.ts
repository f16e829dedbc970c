import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { otherServiceStateDir } from '../../src/config/service-state.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'da-service-state-'));

describe('otherServiceStateDir', () => {
  it("names the service's directory when it exists and this run uses another", () => {
    const root = tmp();
    const service = join(root, 'var-lib-device-agent');
    mkdirSync(service);
    expect(otherServiceStateDir(join(root, 'home-state'), false, service)).toBe(service);
  });

  it("says nothing without an installed service, in the service's own directory, or with a configured node id", () => {
    const root = tmp();
    const service = join(root, 'var-lib-device-agent');
    expect(otherServiceStateDir(join(root, 'home-state'), false, service)).toBeUndefined();
    mkdirSync(service);
    expect(otherServiceStateDir(service, false, service)).toBeUndefined();
    expect(otherServiceStateDir(`${service}/`, false, service)).toBeUndefined();
    expect(otherServiceStateDir(join(root, 'home-state'), true, service)).toBeUndefined();
  });

  it("sees the service through DynamicUser's link into a private directory, and the same directory by another path", () => {
    const root = tmp();
    const real = join(root, 'private', 'device-agent');
    mkdirSync(real, { recursive: true });
    const service = join(root, 'device-agent');
    symlinkSync(real, service);
    expect(otherServiceStateDir(real, false, service)).toBeUndefined();
    expect(otherServiceStateDir(join(root, 'elsewhere'), false, service)).toBe(service);
    // A dangling link (the private directory unreadable to this user) still shows the service is there.
    const dangling = join(root, 'dangling');
    symlinkSync(join(root, 'nowhere'), dangling);
    expect(otherServiceStateDir(join(root, 'elsewhere'), false, dangling)).toBe(dangling);
  });
});
