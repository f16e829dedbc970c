import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// Issue 70, 6: `npm run image` took docker's client although no daemon ran,
// and crun failed at the first RUN on a host with hybrid cgroups. The script's
// own functions (packaging/image.sh, sourced) on a PATH that holds only the
// tools it uses and the stand-ins of test/packaging/engines, which print what
// the real docker and podman print (their headers name where it was recorded).

const root = new URL('../../', import.meta.url).pathname;
const engines = join(root, 'test/packaging/engines');
const scratch = mkdtempSync(join(tmpdir(), 'image-engine-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Host {
  docker?: 'up' | 'down' | 'podman-docker';
  podman?: 'up' | 'down';
  runtime?: 'crun' | 'runc';
  runc?: boolean;
  /** what the cgroup v2 side of a hybrid host lists (crun's check); undefined: no such side */
  v2Controllers?: string;
  env?: Record<string, string>;
}

let hosts = 0;
function build(host: Host): Promise<{ status: number; stderr: string; calls: string[] }> {
  const dir = join(scratch, String(hosts++));
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const tool of ['dirname', 'git', 'grep', 'tail', 'cat']) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
  if (host.docker) symlinkSync(join(engines, host.docker === 'podman-docker' ? 'podman' : 'docker'), join(bin, 'docker'));
  if (host.podman) symlinkSync(join(engines, 'podman'), join(bin, 'podman'));
  if (host.runc) symlinkSync('/bin/true', join(bin, 'runc'));
  const cgroup = join(dir, 'unified');
  if (host.v2Controllers !== undefined) {
    mkdirSync(cgroup);
    writeFileSync(join(cgroup, 'cgroup.controllers'), host.v2Controllers);
  }
  const log = join(dir, 'calls');
  writeFileSync(log, '');
  const env = {
    PATH: bin,
    STANDIN_LOG: log,
    STANDIN_DOCKER: host.docker === 'up' ? 'up' : 'down',
    STANDIN_PODMAN: host.podman ?? 'up',
    STANDIN_RUNTIME: host.runtime ?? 'runc',
    ...host.env,
  };
  // $0 is not the script, so that sourcing it only defines its functions.
  const script = 'source "$1"; cgroup_v2=$2; build';
  return new Promise((resolve) => {
    execFile('/bin/bash', ['--norc', '-c', script, 'image-engine-test', join(root, 'packaging/image.sh'), cgroup], { env }, (error, _stdout, stderr) => {
      const calls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
      resolve({ status: error ? Number(error.code) : 0, stderr, calls });
    });
  });
}

const buildWith = (call: string | undefined) => call?.split(' --build-arg BUILD_NUMBER=')[0];

describe('npm run image: the engine', () => {
  it('is podman when docker has its client and no daemon', async () => {
    const got = await build({ docker: 'down', podman: 'up' });
    expect(got.status).toBe(0);
    expect(got.calls).toHaveLength(1);
    expect(buildWith(got.calls[0])).toBe('podman build --format=docker');
    expect(got.stderr).toMatch(/^image: building device-agent:\d{4}\.\d+ with podman --format=docker/m);
  });

  it('is docker when its daemon answers, podman or not', async () => {
    const got = await build({ docker: 'up', podman: 'up' });
    expect(got.status).toBe(0);
    expect(buildWith(got.calls[0])).toBe('docker build');
  });

  it('is what CONTAINER_ENGINE names, asked nothing, even a docker with no daemon beside a working podman', async () => {
    const got = await build({ docker: 'down', podman: 'up', env: { CONTAINER_ENGINE: 'docker' } });
    expect(buildWith(got.calls[0])).toBe('docker build');
    expect(got.calls).toHaveLength(1);
    expect(got.status).toBe(1);
    expect(got.stderr).toMatch(/Cannot connect to the Docker daemon/);
  });

  it('builds in the docker image format with podman-docker, whose docker is podman', async () => {
    const got = await build({ docker: 'podman-docker' });
    expect(buildWith(got.calls[0])).toBe('docker build --format=docker');
  });

  it('when none answers, says in one line what it tried and what to install, and builds nothing', async () => {
    const docker = 'docker info failed: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?';
    const podman =
      'podman info failed: Error: unable to connect to Podman socket: Get "http://d/v4.3.1/libpod/_ping": dial unix ///run/podman/podman.sock: connect: no such file or directory';
    const help =
      ": install podman (apt-get install podman runc) or start docker's daemon (systemctl start docker), or name the engine with CONTAINER_ENGINE=\n";
    for (const [host, tried] of [
      [{ docker: 'down' }, `${docker};podman is not installed`],
      [{ docker: 'down', podman: 'down' }, `${docker};${podman}`],
      [{}, 'docker is not installed;podman is not installed'],
    ] as const) {
      const got = await build(host);
      expect(got.status).toBe(1);
      expect(got.calls).toEqual([]);
      expect(got.stderr).toBe(`image: no container engine answers (${tried})${help}`);
    }
  });
});

describe('npm run image with podman: the runtime', () => {
  it('is runc where crun refuses the hybrid cgroups (a controller on the cgroup v2 side)', async () => {
    const got = await build({ podman: 'up', runtime: 'crun', runc: true, v2Controllers: 'hugetlb\n' });
    expect(buildWith(got.calls[0])).toBe('podman build --format=docker --runtime=runc');
  });

  it("is podman's own where crun works: no controller on the v2 side, no v2 side, or runc already", async () => {
    for (const host of [{ runtime: 'crun', v2Controllers: '' }, { runtime: 'crun' }, { runtime: 'runc', v2Controllers: 'hugetlb\n' }] as const) {
      const got = await build({ podman: 'up', runc: true, ...host });
      expect(buildWith(got.calls[0])).toBe('podman build --format=docker');
    }
  });

  it('where crun refuses and runc is not installed, says to install it, and builds nothing', async () => {
    const got = await build({ podman: 'up', runtime: 'crun', v2Controllers: 'hugetlb\n' });
    expect(got.status).toBe(1);
    expect(got.calls).toEqual([]);
    expect(got.stderr).toBe(
      "image: podman's crun refuses this host's hybrid cgroups (a controller on the cgroup v2 side): install runc (apt-get install runc)\n",
    );
  });
});
