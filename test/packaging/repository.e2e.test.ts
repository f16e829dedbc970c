import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startingAtEnv } from '../support/faketime.js';
import { systemTool } from '../support/system-tool.js';

// The lab's apt repository (docs/install/repository.md), as a host's apt
// sees it: packaging/apt/publish.sh (npm run repository) with Debian's
// aptly and gpg, served by a real HTTP server, read by the real apt-get and
// apt-cache with a scratch state directory (no host's package is touched).
// The packages are small ones of the same name made here; the real package
// and a booted Debian 12 are test/deploy/systemd.sh's (and rollout.sh's).
// Needs root (apt's own downloader), aptly, gnupg and faketime (the README's install command installs them).

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'da-repository-'));
let server: Server;
let port = 0;
/** What the HTTP server serves: set per test. */
let served = '';

async function sh(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(cmd, args, { env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, out: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : 1, out: (err.stdout ?? '') + (err.stderr ?? '') };
  }
}

/** A GnuPG home with one signing key; its fingerprint. */
async function makeKey(name: string, faketime?: string): Promise<{ home: string; fpr: string }> {
  const home = join(scratch, 'keys', name);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const gen = ['gpg', '--batch', '--passphrase', '', '--quick-gen-key', `device-agent packages (${name})`, 'ed25519', 'sign', '1y'];
  const made = await sh(gen[0]!, gen.slice(1), { GNUPGHOME: home, ...(faketime ? startingAtEnv(faketime) : {}) });
  expect(made.code, made.out).toBe(0);
  const { out } = await sh('gpg', ['--batch', '--with-colons', '--list-secret-keys'], { GNUPGHOME: home });
  return { home, fpr: /^fpr:+([0-9A-F]{40}):/m.exec(out)![1]! };
}

/** A package named device-agent of this version, a few bytes of content apart. */
async function makeDeb(version: string, content = version): Promise<string> {
  const dir = join(scratch, 'build', `${version}-${content}`);
  mkdirSync(join(dir, 'DEBIAN'), { recursive: true });
  mkdirSync(join(dir, 'usr/share/doc/device-agent'), { recursive: true });
  writeFileSync(join(dir, 'usr/share/doc/device-agent/version'), `${content}\n`);
  writeFileSync(
    join(dir, 'DEBIAN/control'),
    `Package: device-agent\nVersion: ${version}\nArchitecture: amd64\nMaintainer: test <test@example.test>\nDescription: test package\n`,
  );
  const deb = join(scratch, 'debs', `${content}`, `device-agent_${version}_amd64.deb`);
  mkdirSync(join(deb, '..'), { recursive: true });
  const built = await sh('dpkg-deb', ['--root-owner-group', '--build', dir, deb]);
  expect(built.code, built.out).toBe(0);
  return deb;
}

function publish(key: { home: string; fpr?: string }, repo: string, ...debs: string[]) {
  return sh('bash', [join(root, 'packaging/apt/publish.sh'), ...(key.fpr ? ['--key', key.fpr] : []), '--root', repo, ...debs], { GNUPGHOME: key.home });
}

/** A host's apt, in a scratch directory: the repository's source (Signed-By KEYRING) and nothing else. */
function host(name: string, keyring: string, at = port) {
  const dir = join(scratch, 'hosts', name);
  for (const d of ['lists/partial', 'cache/archives/partial', 'download']) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(
    join(dir, 'device-agent.sources'),
    `Types: deb\nURIs: http://127.0.0.1:${at}\nSuites: stable\nComponents: main\nArchitectures: amd64\nSigned-By: ${keyring}\n`,
  );
  const opts = [
    ['Dir::Etc::SourceList', join(dir, 'device-agent.sources')],
    ['Dir::Etc::SourceParts', '-'],
    ['Dir::State::Lists', join(dir, 'lists')],
    ['Dir::State::status', '/dev/null'],
    ['Dir::Cache', join(dir, 'cache')],
    ['Dir::Etc::Preferences', '/dev/null'],
    ['Dir::Etc::PreferencesParts', '-'],
    ['APT::Sandbox::User', 'root'],
    ['Acquire::Retries', '0'],
  ].flatMap(([k, v]) => ['-o', `${k}=${v}`]);
  return {
    update: () => sh('apt-get', [...opts, 'update']),
    /** The version apt would install; undefined when it knows no device-agent. */
    candidate: async () => /Candidate: (\S+)/.exec((await sh('apt-cache', [...opts, 'policy', 'device-agent'])).out)?.[1],
    /** Every version its index offers (policy's version table). */
    versions: async () => [...(await sh('apt-cache', [...opts, 'policy', 'device-agent'])).out.matchAll(/^ {5}(?:\*\*\* )?(\d\S*) \d+$/gm)].map((m) => m[1]),
    /** apt's own download of a version, checked against the signed index, as an install fetches it. */
    download: (version: string) =>
      sh('sh', ['-c', `cd '${join(dir, 'download')}' && apt-get ${opts.map((o) => `'${o}'`).join(' ')} download device-agent=${version}`]),
  };
}

/** A copy of the published repository to change. */
function variant(name: string, from: string): string {
  const dir = join(scratch, 'variants', name);
  cpSync(from, dir, { recursive: true });
  return dir;
}

let lab: { home: string; fpr: string };
let other: { home: string; fpr: string };
const repo = join(scratch, 'repo');
const pub = join(repo, 'public');
let good = '';

beforeAll(async () => {
  // sh() takes a tool that is not there for a failed run: say which, once.
  for (const tool of ['aptly', 'gpg', 'faketime']) systemTool(tool);
  server = createServer((req, res) => {
    const file = join(served, normalize(decodeURIComponent(req.url ?? '/').split('?')[0]!));
    if (!file.startsWith(served) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  [lab, other] = await Promise.all([makeKey('lab'), makeKey('other')]);
  const first = await publish(lab, repo, await makeDeb('2611.23'));
  expect(first.code, first.out).toBe(0);
  const second = await publish(lab, repo, await makeDeb('2611.23.1'));
  expect(second.code, second.out).toBe(0);
  good = variant('good', pub);
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  for (const k of [lab, other]) if (k) await sh('gpgconf', ['--kill', 'all'], { GNUPGHOME: k.home });
  rmSync(scratch, { recursive: true, force: true });
});

describe('the lab repository, as apt reads it', () => {
  it('holds every version published, signed by the lab key, which a host verifies with the key file beside it', async () => {
    served = good;
    const h = host('good', join(good, 'device-agent.gpg'));
    const update = await h.update();
    expect(update.code, update.out).toBe(0);
    expect(await h.candidate()).toBe('2611.23.1');
    // Both stay: a rollback installs device-agent=2611.23.
    expect((await h.versions()).sort()).toEqual(['2611.23', '2611.23.1']);
    const got = await h.download('2611.23');
    expect(got.code, got.out).toBe(0);
  }, 60_000);

  it('is refused when signed by another key: NO_PUBKEY, nothing taken', async () => {
    served = good;
    const keyring = join(scratch, 'other.gpg');
    writeFileSync(
      keyring,
      (await run('gpg', ['--batch', '--export', other.fpr], { env: { ...process.env, GNUPGHOME: other.home }, encoding: 'buffer' })).stdout,
    );
    const h = host('other-key', keyring);
    const update = await h.update();
    expect(update.code).not.toBe(0);
    expect(update.out).toMatch(/NO_PUBKEY/);
    expect(await h.candidate()).toBeUndefined();
  }, 60_000);

  it('is refused unsigned, and with an InRelease changed after signing (BADSIG); a host keeps what it knew', async () => {
    const h = host('tampered', join(good, 'device-agent.gpg'));
    served = good;
    expect((await h.update()).code).toBe(0);
    const unsigned = variant('unsigned', good);
    rmSync(join(unsigned, 'dists/stable/InRelease'));
    rmSync(join(unsigned, 'dists/stable/Release.gpg'));
    served = unsigned;
    const u = await h.update();
    expect(u.code).not.toBe(0);
    // A host that knew it signed: "is no longer signed"; a new one: "is not signed".
    expect(u.out).toMatch(/is no longer signed/);
    const changed = variant('changed', good);
    const inRelease = join(changed, 'dists/stable/InRelease');
    writeFileSync(inRelease, readFileSync(inRelease, 'utf8').replace(/^Label: device-agent$/m, 'Label: device-agent-changed'));
    served = changed;
    // On a host that had the index apt only warns (exit 0), and keeps the index it had.
    const c = await h.update();
    expect(c.out).toMatch(/^W: .*The following signatures were invalid: BADSIG/m);
    expect(c.out).toMatch(/The repository is not updated and the previous index files will be used/);
    expect(await h.candidate()).toBe('2611.23.1');
  }, 60_000);

  it('is refused when signed by a key that has expired since: EXPKEYSIG', async () => {
    const expired = await makeKey('expired', '2020-01-01 12:00:00');
    const dir = variant('expired', good);
    rmSync(join(dir, 'dists/stable/InRelease'));
    rmSync(join(dir, 'dists/stable/Release.gpg'));
    const signed = await sh(
      'gpg',
      ['--batch', '--local-user', expired.fpr, '--clearsign', '-o', join(dir, 'dists/stable/InRelease'), join(dir, 'dists/stable/Release')],
      {
        GNUPGHOME: expired.home,
        ...startingAtEnv('2020-06-01 12:00:00'),
      },
    );
    expect(signed.code, signed.out).toBe(0);
    const keyring = join(scratch, 'expired.gpg');
    writeFileSync(
      keyring,
      (await run('gpg', ['--batch', '--export', expired.fpr], { env: { ...process.env, GNUPGHOME: expired.home }, encoding: 'buffer' })).stdout,
    );
    await sh('gpgconf', ['--kill', 'all'], { GNUPGHOME: expired.home });
    served = dir;
    const update = await host('expired', keyring).update();
    expect(update.code).not.toBe(0);
    expect(update.out).toMatch(/EXPKEYSIG/);
  }, 60_000);

  it('half copied (the index names a package not there yet): the download fails at the 404; other bytes than the index says: Hash Sum mismatch', async () => {
    const h = host('half', join(good, 'device-agent.gpg'));
    const half = variant('half', good);
    const pool = 'pool/main/d/device-agent';
    rmSync(join(half, pool, 'device-agent_2611.23.1_amd64.deb'));
    served = half;
    expect((await h.update()).code).toBe(0);
    const missing = await h.download('2611.23.1');
    expect(missing.code).not.toBe(0);
    expect(missing.out).toMatch(/404/);
    const bytes = variant('bytes', good);
    const deb = join(bytes, pool, 'device-agent_2611.23.1_amd64.deb');
    const changed = readFileSync(deb);
    const middle = changed.length >> 1;
    changed[middle] = changed[middle]! ^ 0xff;
    writeFileSync(deb, changed);
    served = bytes;
    const mismatch = await h.download('2611.23.1');
    expect(mismatch.code).not.toBe(0);
    expect(mismatch.out).toMatch(/Hash Sum mismatch/);
  }, 60_000);

  it('unreachable: apt-get update warns that it could not connect (and exits 0: apt takes a mirror that is down as a warning) and keeps what it knew', async () => {
    // A server of its own, stopped after the first update: the same URL, no answer.
    const own = createServer((_req, res) => void server.emit('request', _req, res));
    await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
    const h = host('down', join(good, 'device-agent.gpg'), (own.address() as { port: number }).port);
    served = good;
    expect((await h.update()).code).toBe(0);
    await new Promise((resolve) => own.close(resolve));
    const update = await h.update();
    expect(update.out).toMatch(/^W: Failed to fetch .*Could not connect/m);
    expect(update.out).toMatch(/^W: Some index files failed to download/m);
    expect(await h.candidate()).toBe('2611.23.1');
  }, 60_000);
});

describe('npm run repository', () => {
  it('rotates the key as docs/install/repository.md says: both public keys published first, then the new key signs, and a host with both takes it', async () => {
    // A repository and a key home of their own (the old key and the new one in it, as on the build machine).
    const old = await makeKey('rotation');
    const made = await sh('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', 'device-agent packages (rotation, new)', 'ed25519', 'sign', '1y'], {
      GNUPGHOME: old.home,
    });
    expect(made.code, made.out).toBe(0);
    const fprs = [
      ...(await sh('gpg', ['--batch', '--with-colons', '--list-secret-keys'], { GNUPGHOME: old.home })).out.matchAll(/^fpr:+([0-9A-F]{40}):/gm),
    ].map((m) => m[1]!);
    const next = fprs.find((f) => f !== old.fpr)!;
    const rotating = join(scratch, 'rotating');
    const oldOnly = join(scratch, 'old-only.gpg');
    const first = await makeDeb('2611.25');
    expect((await publish(old, rotating, first)).code).toBe(0);
    copyFileSync(join(rotating, 'public/device-agent.gpg'), oldOnly);
    // Step 2: both public keys published, the old one still signing (the same package again: nothing added).
    const both = await publish(old, rotating, '--next-key', next, first);
    expect(both.code, both.out).toBe(0);
    const keyring = join(scratch, 'both.gpg');
    copyFileSync(join(rotating, 'public/device-agent.gpg'), keyring);
    const listed = await sh('gpg', ['--batch', '--with-colons', '--show-keys', keyring]);
    expect([...listed.out.matchAll(/^fpr:+([0-9A-F]{40}):/gm)].map((m) => m[1]).sort()).toEqual([old.fpr, next].sort());
    const moved = host('rotated', keyring);
    const stayed = host('not-rotated', oldOnly);
    served = join(rotating, 'public');
    expect((await moved.update()).code).toBe(0);
    expect((await stayed.update()).code).toBe(0);
    // Step 3: the new key signs; the key file holds it alone.
    const signedByNew = await publish({ home: old.home, fpr: next }, rotating, await makeDeb('2611.26'));
    expect(signedByNew.code, signedByNew.out).toBe(0);
    const update = await moved.update();
    expect(update.code, update.out).toBe(0);
    expect(await moved.candidate()).toBe('2611.26');
    // A host that never got the file with both keys stops upgrading, as the page says.
    const refused = await stayed.update();
    expect(refused.out).toMatch(/NO_PUBKEY/);
    expect(await stayed.candidate()).toBe('2611.25');
    await sh('gpgconf', ['--kill', 'all'], { GNUPGHOME: old.home });
  }, 60_000);

  it('refuses to publish a version again with other bytes, naming it and what to do', async () => {
    const again = await publish(lab, repo, await makeDeb('2611.23', 'rebuilt'));
    expect(again.code).toBe(1);
    expect(again.out).toMatch(
      /^repository: device-agent_2611\.23_amd64: the repository holds this version already, with other bytes; a version is published once \(npm run version:bump/m,
    );
  }, 60_000);

  it('refuses to publish unsigned, or with a key that cannot sign (no secret part, expired), in one line each', async () => {
    const deb = await makeDeb('2611.24');
    const unsigned = await publish({ home: lab.home }, join(scratch, 'unsigned-repo'), deb);
    expect(unsigned.code).toBe(1);
    expect(unsigned.out).toMatch(/^repository: no signing key: give --key FINGERPRINT/m);
    const publicOnly = join(scratch, 'keys/public-only');
    mkdirSync(publicOnly, { recursive: true, mode: 0o700 });
    copyFileSync(join(good, 'device-agent.gpg'), join(scratch, 'lab-public.gpg'));
    await sh('gpg', ['--batch', '--import', join(scratch, 'lab-public.gpg')], { GNUPGHOME: publicOnly });
    const noSecret = await publish({ home: publicOnly, fpr: lab.fpr }, join(scratch, 'public-only-repo'), deb);
    expect(noSecret.code).toBe(1);
    expect(noSecret.out).toMatch(new RegExp(`^repository: no secret key ${lab.fpr} in `, 'm'));
    await sh('gpgconf', ['--kill', 'all'], { GNUPGHOME: publicOnly });
    const expired = await makeKey('expired-publisher', '2020-01-01 12:00:00');
    const late = await publish(expired, join(scratch, 'expired-repo'), deb);
    expect(late.code).toBe(1);
    expect(late.out).toMatch(new RegExp(`^repository: key ${expired.fpr} cannot sign: gpg: .*Unusable secret key`, 'm'));
    await sh('gpgconf', ['--kill', 'all'], { GNUPGHOME: expired.home });
  }, 60_000);
});
