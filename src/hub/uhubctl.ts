// Switching a hub port's power with uhubctl (or a command that takes its arguments): `COMMAND -l HUB -p PORT -a cycle`
// turns the port off, waits (uhubctl's --delay, 2 s by default) and turns it on again; `-a off` and `-a on` hold it off
// for a charge pause and end it. Run without a shell, bounded by a deadline; its output is kept for the log, cut short.

import { execFile } from 'node:child_process';
import type { HubPort } from '../config/hub-ports.js';
import { hubStatusProblem, portsByHub } from './status.js';

/** What recovery needs of a hub: one port's power cycled. */
export interface PortPower {
  /** Resolves with the tool's output once the port is on again; rejects with why not. */
  cycle(hub: string, port: number): Promise<string>;
  /** The tool's own status listing of a hub (`uhubctl -l HUB`); rejects with why not. */
  status?(hub: string): Promise<string>;
}

/** What charge control needs of a hub: one port's power switched off or on. */
export interface PortSwitch {
  /** Resolves with the tool's output once the port is switched; rejects with why not. */
  switch(hub: string, port: number, power: 'off' | 'on'): Promise<string>;
}

const OUTPUT_CHARS = 2_000;

export class Uhubctl implements PortPower, PortSwitch {
  private readonly argv: string[];

  constructor(
    /** The command, split on spaces (settings: recovery.powerCycleCommand). */
    command: string,
    private readonly timeoutMs = 30_000,
  ) {
    this.argv = command.split(/\s+/).filter(Boolean);
  }

  cycle(hub: string, port: number) {
    return this.switch(hub, port, 'cycle');
  }

  switch(hub: string, port: number, power: 'off' | 'on' | 'cycle') {
    return this.run('-l', hub, '-p', String(port), '-a', power);
  }

  status(hub: string) {
    return this.run('-l', hub);
  }

  private run(...args: string[]) {
    if (this.argv.length === 0) return Promise.reject(new Error('no hub port command is set (recovery.powerCycleCommand)'));
    return runTool([...this.argv, ...args], this.timeoutMs);
  }
}

/**
 * Runs a hub's tool without a shell under a deadline: resolves with its output (cut short, for the log), rejects with
 * the command line and why.
 */
export function runTool(argv: readonly string[], timeoutMs: number, env?: NodeJS.ProcessEnv): Promise<string> {
  const [file, ...args] = argv as [string, ...string[]];
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs, maxBuffer: 1024 * 1024, ...(env && { env }) }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`.trim().slice(0, OUTPUT_CHARS);
      if (!error) return resolve(output);
      const why = error.killed
        ? `no end within ${timeoutMs / 1000} s`
        : typeof error.code === 'number'
          ? `exit status ${error.code}`
          : String(error.code ?? error.message);
      reject(new Error(`${argv.join(' ')}: ${why}${output ? `: ${output.split('\n')[0]}` : ''}`));
    });
  });
}

/** Each mapped hub's status listing by the tool (`ARGV -l HUB`): its ports, and what is wrong with it (undefined: the hub and each port are there). */
export async function hubListings(
  argv: readonly string[],
  mapped: Iterable<HubPort>,
  timeoutMs: number,
  env?: NodeJS.ProcessEnv,
): Promise<Array<{ hub: string; ports: number[]; problem?: string }>> {
  const out = [];
  for (const [hub, ports] of portsByHub(mapped)) {
    const output = await runTool([...argv, '-l', hub], timeoutMs, env).catch((error: Error) => error.message.replace(/^.*?: exit status \d+: /, ''));
    out.push({ hub, ports, problem: hubStatusProblem(hub, ports, output) });
  }
  return out;
}
