// How the agent is started in production, so that measurements match it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function unit(root: string): string {
  try {
    return readFileSync(join(root, 'systemd/device-agent.service'), 'utf8');
  } catch {
    return '';
  }
}

/**
 * NODE_OPTIONS set by systemd/device-agent.service (the image sets the same).
 * Starting `node bin/device-agent.js` skips the launcher's shebang flags, so a
 * measured agent must get them this way.
 */
export function shippedNodeOptions(root: string): string | undefined {
  return /^Environment=NODE_OPTIONS=(.*)$/m.exec(unit(root))?.[1]?.trim() || undefined;
}

/** The V8 flags the unit's ExecStart gives node before the launcher (the Debian wrapper and the image give the same). */
export function shippedNodeFlags(root: string): string[] {
  const args = /^ExecStart=\S+\/node((?: --\S+)*) \S+\/bin\/device-agent\.js /m.exec(unit(root))?.[1];
  return args?.trim().split(' ').filter(Boolean) ?? [];
}
