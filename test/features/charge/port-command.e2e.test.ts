import { describe, expect, it } from 'vitest';
import { PortCommand } from '../../../src/features/charge/port-command.js';

describe("the operator's port command", () => {
  it('puts the hub, the port and the action into each word, and runs it without a shell', async () => {
    // echo shows the words it was given: a shell would have expanded $HOME and split the hub on its space.
    await expect(new PortCommand('echo hub={hub} port={port} {action} $HOME').switch('1-1.4', 3, 'off')).resolves.toBe('hub=1-1.4 port=3 off $HOME');
    await expect(new PortCommand('echo {hub}').switch('a b;reboot', 1, 'on')).resolves.toBe('a b;reboot');
  });

  it('rejects with the command line and why: the exit status, no end in time, or no command set', async () => {
    await expect(new PortCommand('false {port} {action}').switch('1-1', 2, 'on')).rejects.toThrow('false 2 on: exit status 1');
    await expect(new PortCommand('node -e setTimeout(()=>0,5000) {port} {action}', 200).switch('1-1', 2, 'on')).rejects.toThrow(/no end within 0.2 s/);
    await expect(new PortCommand('').switch('1-1', 2, 'on')).rejects.toThrow('no port command is set (charge.command)');
  });
});
