import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseOrientation } from '../../../../../src/platforms/android/inventory/parsers/orientation.js';
import { fixture } from '../fixture.js';

describe('parseOrientation', () => {
  it('Android 13 without SurfaceOrientation: the viewport orientation', () => {
    expect(parseOrientation(fixture('orientation', 'android13-redroid-no-surfaceorientation.txt'))).toBe(0);
  });

  it.each([
    // Line formats as printed by InputReader's dump in each release (invented surroundings).
    ['    SurfaceOrientation: 1', 90],
    ['      InputDeviceOrientation: 3', 270],
    ['      InputDeviceOrientation: Rotation180', 180],
    ['  Viewport INTERNAL: displayId=0, orientation=1, logicalFrame=[0, 0, 2400, 1080]', 90],
  ])('%s → %d°', (line, degrees) => {
    expect(parseOrientation(`INPUT MANAGER (dumpsys input)\n${line}\n`)).toBe(degrees);
  });

  it('a bare "Orientation: 0" of a touch device is not the display rotation', () => {
    expect(parseOrientation('    Orientation: 0\n')).toBeUndefined();
  });

  it('never throws', () => {
    fc.assert(fc.property(fc.string(), (text) => void parseOrientation(text)));
  });
});
