import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hubToolItems, locate } from '../../src/hub/tool-doctor.js';

/** A directory for PATH with these files, executable or not. */
function bin(files: Record<string, boolean>): string {
  const dir = mkdtempSync(join(tmpdir(), 'da-bin-'));
  for (const [name, executable] of Object.entries(files)) {
    writeFileSync(join(dir, name), '#!/bin/sh\n');
    chmodSync(join(dir, name), executable ? 0o755 : 0o644);
  }
  return dir;
}

const settings = (o: { powerCycle?: boolean; powerCycleCommand?: string; ways?: string[]; command?: string }) => ({
  recovery: { powerCycle: o.powerCycle ?? false, powerCycleCommand: o.powerCycleCommand ?? 'uhubctl' },
  charge: { ways: o.ways ?? [], command: o.command },
});

describe('the hub tools doctor looks for', () => {
  it('none when neither power cycling nor a port way of charge control is on', async () => {
    const none = settings({ ways: ['model:SM-*=off'], command: '/nonexistent {hub} {port} {action}' });
    expect(await hubToolItems(none, { PATH: '' }, 'recovery.powerCycleCommand')).toEqual([]);
    expect(await hubToolItems(none, { PATH: '' }, 'charge.command')).toEqual([]);
  });

  it('finds uhubctl on PATH for power cycling and the uhubctl way, in one line', async () => {
    const dir = bin({ uhubctl: true });
    expect(
      await hubToolItems(settings({ powerCycle: true, ways: ['model:SM-*=uhubctl'] }), { PATH: `/nonexistent:${dir}` }, 'recovery.powerCycleCommand'),
    ).toEqual([
      { status: 'ok', finding: `hub tool uhubctl (recovery.powerCycleCommand, for recovery.powerCycle, charge.ways uhubctl): ${join(dir, 'uhubctl')}` },
    ]);
  });

  it('fails on a uhubctl missing from PATH, saying what to install', async () => {
    const [item] = await hubToolItems(settings({ powerCycle: true }), { PATH: bin({}) }, 'recovery.powerCycleCommand');
    expect(item).toMatchObject({
      status: 'fail',
      finding: 'hub tool uhubctl (recovery.powerCycleCommand, for recovery.powerCycle): uhubctl is not on PATH',
      advice: expect.stringMatching(/^install uhubctl \(`apt install uhubctl`\) or set recovery\.powerCycleCommand/),
    });
  });

  it("checks the program of the operator's command (its first word), and names one that is not executable", async () => {
    const dir = bin({ 'hub-power': false });
    const [item] = await hubToolItems(settings({ ways: ['R58M1=command'], command: `${dir}/hub-power {hub} {port} {action}` }), { PATH: '' }, 'charge.command');
    expect(item).toMatchObject({
      status: 'fail',
      finding: `hub tool ${dir}/hub-power (charge.command, for charge.ways command): ${dir}/hub-power is not executable`,
      advice: expect.stringMatching(/^set charge\.command to a program this host can run/),
    });
  });

  it('takes a path as given and a wrapper by its own name (sudo uhubctl: sudo)', async () => {
    expect(locate('/nonexistent/uhubctl', '/usr/bin')).toEqual({ missing: '/nonexistent/uhubctl does not exist' });
    const dir = bin({ sudo: true });
    expect(
      (await hubToolItems(settings({ powerCycle: true, powerCycleCommand: 'sudo uhubctl' }), { PATH: dir }, 'recovery.powerCycleCommand'))[0],
    ).toMatchObject({ status: 'ok' });
  });
});
