import { ConfigError, ConfigErrors, onConfigError } from '../config/errors.js';
import { loadDefaults } from '../config/load.js';
import { REFERENCE_PATH } from '../config/reference.js';
import { agentVersion, projectRoot } from '../util/package.js';
import { join } from 'node:path';
import { parseCli, UsageError } from './args.js';
import { EXIT } from './commands.js';
import { commandHelp, globalHelp } from './help.js';
import { once } from './once.js';
import { run } from './run.js';
import { setup } from './setup.js';
import { outputErrorsAreNotFatal } from './output-errors.js';
import { StatusLine } from './progress.js';
import { versionOfThisProcess } from './version.js';
export { onOutputError } from './output-errors.js';

/** The CLI: returns the process exit code. */
export async function main(argv: string[], env = process.env) {
  try {
    if (!argv.length) {
      process.stderr.write(globalHelp(helpContext()));
      return EXIT.config;
    }
    const args = parseCli(argv);
    if (args.command === 'help') {
      process.stdout.write(args.helpFor ? commandHelp(args.helpFor, helpContext()) : globalHelp(helpContext()));
      return EXIT.ok;
    }
    if (args.command === 'version') {
      process.stdout.write(versionOfThisProcess());
      return EXIT.ok;
    }
    if (args.command === 'doctor') {
      const { doctor, doctorUnconfigured } = await import('./doctor.js');
      // On a terminal, what the doctor still checks, at the foot of stderr.
      const line = StatusLine.onTerminal(process.stderr, env);
      const s = onConfigError(
        () => setup(args, env, line ?? process.stderr, true),
        (err) => err,
      );
      if (s instanceof ConfigError) return doctorUnconfigured(s, env, process.stdout, args.json);
      return await doctor(s, env, process.stdout, args.phones, { json: args.json, line });
    }
    if (args.command === 'quarantine' || args.command === 'incidents') {
      // They read and leave files in the state directory: no service of the platforms is asked.
      const s = setup(args, env, process.stderr, true);
      if (args.command === 'incidents') return (await import('./incidents.js')).incidents(s, env, args.operands?.[0], args.json ?? false, process.stdout);
      return await (await import('./quarantine.js')).quarantine(s, env, args.operands ?? [], args.json ?? false, process.stdout);
    }
    // The daemon logs to stdout (journald, docker logs); one-shot commands keep
    // stdout for their output and log to stderr.
    if (args.command === 'list') {
      const { list, DeviceLines } = await import('./list.js');
      // On a terminal, what list waits for, at the foot of stderr, its log lines above it; none about a device its table shows, which its row says.
      const line = StatusLine.onTerminal(process.stderr, env);
      const lines = new DeviceLines();
      return await list(setup(args, env, line ?? process.stderr, false, lines.hold), env, args.json ?? false, process.stdout, { line, lines });
    }
    const s = setup(args, env, args.command === 'run' ? process.stdout : process.stderr);
    switch (args.command) {
      case 'once':
        return await once(s, env, args.dryRun, process.stdout);
      case 'run':
        outputErrorsAreNotFatal();
        return await run(s, env);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      // One line: the mistake and where the right usage is, nothing to scroll past.
      process.stderr.write(`device-agent: ${err.message} (device-agent ${err.command ? `${err.command} ` : ''}--help)\n`);
      return EXIT.config;
    }
    if (err instanceof ConfigError) {
      const warnings = err instanceof ConfigErrors ? err.warnings : [];
      for (const w of warnings) process.stderr.write(`device-agent: warning: ${w.message}\n`);
      for (const problem of err.problems) process.stderr.write(`device-agent: configuration error: ${problem.message}\n`);
      return EXIT.config;
    }
    throw err;
  }
}

function helpContext() {
  return { version: agentVersion, defaults: loadDefaults(), reference: join(projectRoot, REFERENCE_PATH) };
}
