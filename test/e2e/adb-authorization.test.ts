import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { DaemonBed } from './daemon-bed.js';
import { steppedClockEnv } from '../support/faketime.js';
import { waitFor } from '../support/wait.js';

// adb authorization that lapses, across restarts, on a wall clock stepped
// with libfaketime: a phone the agent saw connected (its window read from
// `settings list global`, the recorded LineageOS list of
// test/features/readiness/fixtures/, `adb_allowed_connection_time=604800000`:
// a week) leaves; the agent restarted 6 days later says once that it drops
// this host's key within a day, and the runs after it say nothing more of
// that absence (adb-authorizations.json in the state directory). An Android
// 8.1 phone beside it, with the same list, is never warned about: its
// framework keeps an allowed key with no time (src/platforms/android/facts.ts).

const GLOBAL = readFileSync(new URL('../features/readiness/fixtures/lineage18-sm-a520f-global.txt', import.meta.url), 'utf8');

const bed = new DaemonBed('pixel-8-pro');
const DAY_S = 86_400;

beforeAll(() => bed.start());
afterAll(() => bed.stop());

describe('a phone away from the host', () => {
  it('for 6 days: warned about once, by the run that is up then, and not by the runs after it', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'da-auth-'));
    const stepFile = join(stateDir, '..', `${stateDir.split('/').pop()}-offset`);
    writeFileSync(stepFile, '+0\n');
    // Scheduled reports without news are logged at debug: counted to see a run go on past its first reports.
    const env = { DEVICE_AGENT_STATE_DIR: stateDir, DEVICE_AGENT_SCHEDULE: '*/2 * * * * *', DEVICE_AGENT_LOG_LEVEL: 'debug', ...steppedClockEnv(stepFile) };
    const reports = (a: typeof agent) => a.logs().filter((l) => l.msg === 'report delivered').length;
    const file = join(stateDir, 'adb-authorizations.json');

    const base = withSerial(loadProfile('pixel-8-pro'), 'AWAY0001');
    const commands = new Map(base.commands);
    commands.set('settings list global', { output: GLOBAL, exitCode: 0 });
    const phone = new SimDevice({ profile: { ...base, commands } });
    bed.devices.push(phone);
    await bed.adb.connect(await phone.start());
    await bed.adb.waitForState(phone.serial, 'device', 20_000);
    const oldBase = withSerial(loadProfile('smartron-t5911-android8.1'), 'OLDER001');
    const oldCommands = new Map(oldBase.commands);
    oldCommands.set('settings list global', { output: GLOBAL, exitCode: 0 });
    const older = new SimDevice({ profile: { ...oldBase, commands: oldCommands } });
    bed.devices.push(older);
    await bed.adb.connect(await older.start());
    await bed.adb.waitForState(older.serial, 'device', 20_000);
    let agent = bed.run(env);
    const kept = () => (existsSync(file) ? readFileSync(file, 'utf8') : '');
    await waitFor(() => kept().includes('"AWAY0001"') && kept().includes('"OLDER001"'), 30_000, 'both phones kept in the state file');
    await agent.stop('SIGTERM');
    // They leave the host.
    for (const p of [phone, older]) {
      await bed.adb.disconnect(p.port);
      await p.stop();
    }

    const warnings = (a: typeof agent) =>
      a.logs().filter((l) => l.level === 'warn' && /^phone AWAY0001 .*has been away from this host since/.test(String(l.msg)));
    // 6 days later.
    writeFileSync(stepFile, `+${6 * DAY_S}\n`);
    agent = bed.run(env);
    const line = await agent.waitForLog((l) => /^phone AWAY0001 .*has been away from this host since/.test(String(l.msg)), 30_000);
    expect(String(line.msg)).toMatch(/it keeps this host's adb authorization for 7 days .* so it drops it at .*, in (2[0-4]|1\d) h: plug it in before then/);
    const seen = reports(agent);
    await waitFor(() => reports(agent) >= seen + 3, 30_000, 'three more reports');
    expect(warnings(agent)).toHaveLength(1);
    expect(agent.logs().filter((l) => /OLDER001/.test(String(l.msg)) && /authorization/.test(String(l.msg)))).toEqual([]);
    await agent.stop('SIGTERM');

    // Restarted again within that absence: nothing more is said of it.
    writeFileSync(stepFile, `+${6 * DAY_S + 3600}\n`);
    agent = bed.run(env);
    await waitFor(() => reports(agent) >= 4, 30_000, 'four reports');
    expect(warnings(agent)).toEqual([]);
    await agent.stop('SIGTERM');
  }, 180_000);
});
