// How the agent is started in production, so that measurements match it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * NODE_OPTIONS set by systemd/device-agent.service (the image sets the same).
 * Starting `node bin/device-agent.js` skips the launcher's shebang flags, so a
 * measured agent must get them this way.
 */
export function shippedNodeOptions(root: string): string | undefined {
  try {
    const unit = readFileSync(join(root, 'systemd/device-agent.service'), 'utf8');
    return /^Environment=NODE_OPTIONS=(.*)$/m.exec(unit)?.[1]?.trim() || undefined;
  } catch {
    return undefined;
  }
}
