// Display rotation from `dumpsys input`, whose wording changed over time:
//   Android up to 12:  "SurfaceOrientation: 1" (per touch device)
//   Android 13/14:     "InputDeviceOrientation: 1"
//   Android 15+:       "InputDeviceOrientation: Rotation90"
//   any of them:       "Viewport INTERNAL: ... orientation=1, ..." (some builds
//                      print only this one)
// Numbers are Surface.ROTATION_* quarter-turns; the result is in degrees.

const ROTATION = /^(?:([0-3])|Rotation(0|90|180|270))$/;

function degrees(token: string | undefined) {
  const match = ROTATION.exec(token ?? '');
  if (!match) return undefined;
  return match[1] !== undefined ? Number(match[1]) * 90 : Number(match[2]);
}

export function parseOrientation(text: string) {
  const clean = text.replace(/\r/g, '');
  const patterns = [/^\s*SurfaceOrientation:\s*(\S+)\s*$/m, /^\s*InputDeviceOrientation:\s*(\S+)\s*$/m, /Viewport INTERNAL:[^\n]*?\borientation=(\d)\b/];
  for (const pattern of patterns) {
    const value = degrees(pattern.exec(clean)?.[1]);
    if (value !== undefined) return value;
  }
}
