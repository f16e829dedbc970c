import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../cloud-double/cloud-double.js';
import type { AgentProcess } from '../e2e/agent-process.js';
import { DaemonBed } from '../e2e/daemon-bed.js';
import { devicesOf } from '../support/reports.js';

// Issue 42: with the node id kept and the state directory's file system full,
// `run` exited 2 ("cannot keep the node id ...: ENOSPC"): the lock taken to
// read the id could not be written. A lab host's /var fills (phone logs, apt
// caches) and then none of its phones was reported. Here the daemon starts on
// a small tmpfs (root only, as test/report/reported-store.test.ts) that is
// already full, read-only, or out of inodes, and each time its first report
// carries the phones under the kept id.

const bed = new DaemonBed('pixel-8-pro');
const { cloud } = bed;
const mounts: string[] = [];
const KEPT_ID = '4f1c2a9e-3b7d-4e8a-9c61-0d2f5b7a8e13';

beforeAll(() => bed.start());
afterEach(() => bed.reset());
afterAll(async () => {
  await bed.stop();
  for (const m of mounts) execFileSync('umount', ['-l', m]);
});

/** A tmpfs of its own, with the node id kept in it when one is given. */
function stateDir(options: string, nodeId?: string): string {
  const mount = mkdtempSync(join(tmpdir(), 'da-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', mount]);
  mounts.push(mount);
  if (nodeId) writeFileSync(join(mount, 'node-id'), `${nodeId}\n`);
  return mount;
}

/** Fills the file system's blocks; returns the file to remove to free them. */
function fillBlocks(dir: string): string {
  const filler = join(dir, 'filler');
  try {
    writeFileSync(filler, Buffer.alloc(1024 * 1024));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  }
  // Full: not one more byte goes in (the file is made, empty, as the lock file was).
  expect(() => writeFileSync(join(dir, 'probe'), 'x')).toThrow(/ENOSPC/);
  unlinkSync(join(dir, 'probe'));
  return filler;
}

/** Uses up the file system's inodes: no file can be made, the lock file neither. */
function fillInodes(dir: string): string[] {
  const made: string[] = [];
  for (let i = 0; ; i++) {
    const f = join(dir, `inode-${i}`);
    try {
      writeFileSync(f, '');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      return made;
    }
    made.push(f);
  }
}

const warnings = (agent: AgentProcess) => agent.logs().filter((l) => l.level === 'warn' || l.level === 'error');
const saying = (agent: AgentProcess, text: RegExp) => agent.logs().filter((l) => text.test(String(l.msg)));
/** The one warning of a state directory in trouble, and what to do. */
const directoryLine = (dir: string, trouble: string, advice: string) =>
  new RegExp(
    `^the state directory ${dir}: ${trouble}\\. The agent goes on reporting, but keeps nothing there until this is fixed: ${advice}\\. A line says when its files are written again$`,
  );
const nodeIdOf = (r: RecordedRequest) => (r.body as { nodeId?: string }).nodeId;

/** A SIGHUP's full report, and the one after it: the warnings are not said again per report. */
async function twoMoreReports(agent: AgentProcess): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const t0 = Date.now();
    agent.child.kill('SIGHUP');
    await cloud.waitForPut((r) => r.receivedAt >= t0, 20_000);
  }
}

describe('a state directory full at start, its node id kept (issue 42: the agent exited 2 and reported nothing)', () => {
  it('the first report carries the phones under the kept id; one warning saying what to do; once space is freed, the set is written again and one line says so', async () => {
    const dir = stateDir('size=64k', KEPT_ID);
    const filler = fillBlocks(dir);
    await bed.plug('FULL0001');
    const agent = bed.run({ DEVICE_AGENT_STATE_DIR: dir });
    const first = await cloud.waitForPut(() => true, 20_000);
    expect(nodeIdOf(first)).toBe(KEPT_ID);
    expect(devicesOf(first).map((d) => d.udid)).toEqual(['FULL0001']);
    await twoMoreReports(agent);
    expect(warnings(agent).map((l) => l.msg)).toEqual([
      expect.stringMatching(directoryLine(dir, 'the file system is full \\(ENOSPC\\)', 'free space on its file system')),
    ]);
    // What each file it cannot keep costs: at info, once, however many reports.
    expect(saying(agent, /^cannot keep the reported device set in .*reported-devices\.json: the file system is full \(ENOSPC\); reports go on/)).toHaveLength(
      1,
    );
    // Nothing left behind that would hold the next write up (an empty .lock waited 5 s a write); the directory an
    // operator's quarantine release is dropped in (made at start, empty) is no file to write. The agent keeps trying its
    // writes, and each attempt holds the lock for the instant it fails: a lock seen then is gone a moment later, while
    // one left behind stays (its takeover is 30 s away), so the listing is read until it has none, for 2 s at most.
    await expect.poll(() => readdirSync(dir).sort(), { timeout: 2_000, interval: 20 }).toEqual(['filler', 'node-id', 'quarantine-requests']);
    expect(readdirSync(join(dir, 'quarantine-requests'))).toEqual([]);

    unlinkSync(filler);
    const t0 = Date.now();
    agent.child.kill('SIGHUP');
    await cloud.waitForPut((r) => r.receivedAt >= t0, 20_000);
    await agent.waitForLog((l) => l.msg === 'the state directory keeps the reported device set again');
    const kept = JSON.parse(readFileSync(join(dir, 'reported-devices.json'), 'utf8')) as { devices: Array<{ udid: string }> };
    expect(kept.devices.map((d) => d.udid)).toEqual(['FULL0001']);
    expect(readFileSync(join(dir, 'node-id'), 'utf8')).toBe(`${KEPT_ID}\n`);
    expect(existsSync(join(dir, '.lock'))).toBe(false);
  }, 90_000);

  it('out of inodes (not even the lock file can be made): the first report carries the phones under the kept id, one warning', async () => {
    const dir = stateDir('size=1m,nr_inodes=16', KEPT_ID);
    const made = fillInodes(dir);
    await bed.plug('INOD0001');
    const agent = bed.run({ DEVICE_AGENT_STATE_DIR: dir });
    const first = await cloud.waitForPut(() => true, 20_000);
    expect(nodeIdOf(first)).toBe(KEPT_ID);
    expect(devicesOf(first).map((d) => d.udid)).toEqual(['INOD0001']);
    await twoMoreReports(agent);
    expect(warnings(agent).map((l) => l.msg)).toEqual([
      expect.stringMatching(directoryLine(dir, 'the file system is full \\(ENOSPC\\)', 'free space on its file system')),
    ]);
    expect(saying(agent, /^cannot keep the reported device set in /)).toHaveLength(1);
    for (const f of made) unlinkSync(f);
    const t0 = Date.now();
    agent.child.kill('SIGHUP');
    await cloud.waitForPut((r) => r.receivedAt >= t0, 20_000);
    await agent.waitForLog((l) => l.msg === 'the state directory keeps the reported device set again');
  }, 90_000);

  it('read-only: the first report carries the phones under the kept id, one warning naming EROFS', async () => {
    const dir = stateDir('size=64k', KEPT_ID);
    execFileSync('mount', ['-o', 'remount,ro', dir]);
    await bed.plug('ROFS0001');
    const agent = bed.run({ DEVICE_AGENT_STATE_DIR: dir });
    const first = await cloud.waitForPut(() => true, 20_000);
    expect(nodeIdOf(first)).toBe(KEPT_ID);
    expect(devicesOf(first).map((d) => d.udid)).toEqual(['ROFS0001']);
    await twoMoreReports(agent);
    expect(warnings(agent).map((l) => l.msg)).toEqual([
      expect.stringMatching(
        directoryLine(dir, 'the file system is read-only \\(EROFS\\)', 'remount it read-write, or set DEVICE_AGENT_STATE_DIR to a writable directory'),
      ),
    ]);
    expect(saying(agent, /^cannot keep the reported device set in .*: the file system is read-only \(EROFS\)/)).toHaveLength(1);
  }, 90_000);
});

describe('no node id kept yet and the state directory full', () => {
  it('one line: nothing is reported until an id can be kept, and why; no report meanwhile; once space is freed (SIGHUP tries at once) the id is kept and the first report carries the phones under it', async () => {
    const dir = stateDir('size=64k');
    const filler = fillBlocks(dir);
    await bed.plug('NOID0001');
    const agent = bed.run({ DEVICE_AGENT_STATE_DIR: dir });
    const waiting = await agent.waitForLog((l) => l.level === 'warn', 20_000);
    expect(String(waiting.msg)).toMatch(
      new RegExp(
        `^stateDir \\(DEVICE_AGENT_STATE_DIR\\): no node id is kept in ${dir} yet and none can be \\(ENOSPC: the file system is full\\); nothing is reported until one is: .* Free space in ${dir}, or set DEVICE_AGENT_NODE_ID; trying again every 30 s, or at once on SIGHUP$`,
      ),
    );
    // A SIGHUP with the disk still full: tried again and answered, not warned again, not stopped.
    agent.child.kill('SIGHUP');
    await agent.waitForLog((l) => l.msg === `SIGHUP: still no room to keep a node id in ${dir} (ENOSPC); nothing is reported yet`);
    expect(agent.child.exitCode).toBeNull();
    expect(cloud.putRequests()).toEqual([]);
    expect(warnings(agent)).toHaveLength(1);

    unlinkSync(filler);
    agent.child.kill('SIGHUP');
    const kept = await agent.waitForLog((l) => String(l.msg).startsWith('the node id '), 15_000);
    const id = readFileSync(join(dir, 'node-id'), 'utf8').trim();
    expect(kept.msg).toBe(`the node id ${id} is kept in the state directory now; reporting starts`);
    const first = await cloud.waitForPut(() => true, 20_000);
    expect(nodeIdOf(first)).toBe(id);
    expect(devicesOf(first).map((d) => d.udid)).toEqual(['NOID0001']);
    expect(warnings(agent)).toHaveLength(1);
  }, 90_000);

  it('a SIGTERM while it waits: exit 0 at once, saying nothing was reported', async () => {
    const dir = stateDir('size=64k');
    fillBlocks(dir);
    const agent = bed.run({ DEVICE_AGENT_STATE_DIR: dir });
    await agent.waitForLog((l) => l.level === 'warn', 20_000);
    const end = await agent.stop('SIGTERM', 5_000);
    expect(end.code).toBe(0);
    expect(end.stdout).toMatch(/stopped while waiting for room to keep a node id; nothing had been reported yet/);
  }, 60_000);
});
