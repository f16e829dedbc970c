// An operator's own command for switching a hub port (charge.ways = command), for hubs uhubctl does not drive: a
// template split on spaces, {hub}, {port} and {action} put in each word, run without a shell (nothing a hub name could
// inject), under uhubctl's deadline.

import { runTool, type PortSwitch } from '../../hub/uhubctl.js';

const PLACES = /\{(hub|port|action)\}/g;

export class PortCommand implements PortSwitch {
  private readonly words: string[];

  constructor(
    /** The template (settings: charge.command). */
    template: string,
    private readonly timeoutMs = 30_000,
  ) {
    this.words = template.split(/\s+/).filter(Boolean);
  }

  switch(hub: string, port: number, power: 'off' | 'on') {
    if (this.words.length === 0) return Promise.reject(new Error('no port command is set (charge.command)'));
    const values: Record<string, string> = { hub, port: String(port), action: power };
    return runTool(
      this.words.map((w) => w.replace(PLACES, (_, name: string) => values[name]!)),
      this.timeoutMs,
    );
  }
}
