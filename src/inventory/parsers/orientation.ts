// Display rotation from `dumpsys input`. Android up to 12 prints
// "SurfaceOrientation: N" per touch device; later releases dropped it and
// print the viewport instead ("Viewport INTERNAL: ... orientation=N, ...").
// N is the Surface.ROTATION_* quarter-turn; the result is in degrees.

export function parseOrientation(text: string): number | undefined {
  const clean = text.replace(/\r/g, '');
  const patterns = [
    /^\s*SurfaceOrientation:\s*([0-3])\s*$/m,
    /^\s*InputDeviceOrientation:\s*([0-3])\s*$/m,
    /Viewport INTERNAL:[^\n]*?\borientation=([0-3])\b/,
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(clean);
    if (match) return Number(match[1]) * 90;
  }
  return undefined;
}
