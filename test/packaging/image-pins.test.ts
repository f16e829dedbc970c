import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Issue 61, 1: compose.yaml and the container guide ran `device-agent:local`
// (which image is that, a month later?), and the base was the moving tag
// node:24-bookworm-slim. test/deploy/container.sh builds and runs the image
// tagged with the version (on a local base: no registry there, so it passes
// BASE_IMAGE); this reads what a lab's own build starts from.

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const version = (JSON.parse(read('package.json')) as { version: string }).version;

describe("the image's names", () => {
  it('builds by default on node:24-bookworm-slim pinned by its digest, which compose.yaml leaves in place', () => {
    const arg = /^ARG BASE_IMAGE=(\S+)$/m.exec(read('Dockerfile'))?.[1];
    expect(arg).toMatch(/^node:24-bookworm-slim@sha256:[0-9a-f]{64}$/);
    // compose passes BASE_IMAGE only when it is set; a default there would win over the pin.
    const compose = read('compose.yaml');
    expect(compose).toMatch(/^ {6}- BASE_IMAGE$/m);
    expect(compose).not.toMatch(/BASE_IMAGE:/);
  });

  it('runs the image tagged with the version of package.json in compose.yaml and the container guide', () => {
    const tags = [...read('compose.yaml').matchAll(/^\s*image: (\S+)$/gm)].map((m) => m[1]);
    expect(tags.length).toBeGreaterThanOrEqual(2);
    for (const tag of tags) expect(tag).toBe(`device-agent:${version}`);
    const guide = read('docs/install/container.md');
    expect(guide).not.toMatch(/device-agent:local/);
    expect(guide).toMatch(/device-agent:\d{4}\.\d{2}/);
  });
});
