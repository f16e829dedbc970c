import { ConfigError } from '../config/errors.js';
import { agentVersion } from '../util/package.js';
import { HELP, parseCli, UsageError } from './args.js';
import { EXIT_CONFIG, once } from './once.js';
import { run } from './run.js';
import { setup } from './setup.js';

/** The CLI: returns the process exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const args = parseCli(argv);
    if (args.command === 'help') {
      process.stdout.write(HELP);
      return 0;
    }
    if (args.command === 'version') {
      process.stdout.write(`device-agent ${agentVersion}\n`);
      return 0;
    }
    // The daemon logs to stdout (journald, docker logs); one-shot commands keep
    // stdout for their output and log to stderr.
    const s = setup(args, env, args.command === 'run' ? process.stdout : process.stderr);
    switch (args.command) {
      case 'once':
        return await once(s, env, args.dryRun, process.stdout);
      case 'list': {
        const { list } = await import('./list.js');
        return await list(s, env, args.json ?? false, process.stdout);
      }
      case 'run':
        return await run(s, env);
      case 'doctor': {
        const { doctor } = await import('./doctor.js');
        return await doctor(s, env, process.stdout);
      }
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`device-agent: ${err.message}\n\n${HELP}`);
      return EXIT_CONFIG;
    }
    if (err instanceof ConfigError) {
      process.stderr.write(`device-agent: configuration error: ${err.message}\n`);
      return EXIT_CONFIG;
    }
    throw err;
  }
}
