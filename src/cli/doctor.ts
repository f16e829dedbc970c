import type { Setup } from './setup.js';

/** Placeholder until the operations issue: doctor is not built yet. */
export async function doctor(_setup: Setup, _env: NodeJS.ProcessEnv, stdout: NodeJS.WritableStream): Promise<number> {
  stdout.write('device-agent doctor is not implemented yet\n');
  return 1;
}
