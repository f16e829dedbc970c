// An operator's own command for switching a hub port (charge.ways =
// command), for hubs that uhubctl does not drive but that come with a tool
// of their own (Cambrionix's cbrxctl, Acroname's scripts, a relay board):
// a template split on spaces, each word with {hub}, {port} and {action}
// (off or on) put in, run without a shell (no quoting to get wrong, nothing
// a hub name could inject), under the same deadline as uhubctl.

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

  switch(hub: string, port: number, power: 'off' | 'on'): Promise<string> {
    if (this.words.length === 0) return Promise.reject(new Error('no port command is set (charge.command)'));
    const values: Record<string, string> = { hub, port: String(port), action: power };
    return runTool(
      this.words.map((w) => w.replace(PLACES, (_, name: string) => values[name]!)),
      this.timeoutMs,
    );
  }
}
