import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemTool, toolPackages } from './system-tool.js';

const dir = mkdtempSync(join(tmpdir(), 'system-tool-'));
const bin = join(dir, 'bin');
mkdirSync(bin);
writeFileSync(join(bin, 'ansible-playbook'), '#!/bin/sh\n');
chmodSync(join(bin, 'ansible-playbook'), 0o755);
writeFileSync(join(bin, 'squid'), 'not executable\n');
mkdirSync(join(bin, 'nginx'));

describe('systemTool', () => {
  it('finds a listed tool on the PATH', () => {
    expect(systemTool('ansible-playbook', `/nonexistent:${bin}`)).toBe(join(bin, 'ansible-playbook'));
  });

  it('names the Debian package of a tool the PATH lacks, in one line: a file not executable or a directory is not the tool', () => {
    expect(() => systemTool('ansible-playbook', '/nonexistent')).toThrow(
      /^needs ansible-playbook \(Debian package ansible\): not installed here \(not on PATH\); sh tools\/install-system-tools\.sh, the README's install command, installs every tool the tests run$/,
    );
    expect(() => systemTool('tinyproxy', bin)).toThrow(/^needs tinyproxy \(Debian package tinyproxy\)/);
    expect(() => systemTool(join(bin, 'squid'))).toThrow(new RegExp(`^needs squid \\(Debian package squid\\): not installed here \\(${bin}/squid\\)`));
    expect(() => systemTool(join(bin, 'nginx'))).toThrow(/^needs nginx \(Debian package nginx\)/);
  });

  it.runIf(existsSync('/usr/sbin/squid'))("looks in /usr/sbin too, off a user's PATH on Debian", () => {
    expect(systemTool('squid', bin)).toBe('/usr/sbin/squid');
  });

  it('takes a path as PROMTOOL_BIN gives one, by the name of its file', () => {
    expect(systemTool(join(bin, 'ansible-playbook'), '')).toBe(join(bin, 'ansible-playbook'));
    expect(() => systemTool('/opt/prometheus/promtool', '')).toThrow(
      /^needs promtool \(Debian package prometheus\): not installed here \(\/opt\/prometheus\/promtool\)/,
    );
  });

  it('refuses a tool tools/system-tools.txt does not list, which the install command would not install', () => {
    expect(() => systemTool('uhubctl', bin)).toThrow(/^uhubctl is not in tools\/system-tools\.txt: add it there with its Debian package/);
  });
});

describe('tools/system-tools.txt', () => {
  const text = readFileSync(new URL('../../tools/system-tools.txt', import.meta.url), 'utf8');

  it('gives each tool one package, for the tests or the deploy checks', () => {
    const lines = text.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
    for (const line of lines) expect(line, line).toMatch(/^[a-z0-9_,.-]+ +[a-z0-9.+-]+ +(tests|deploy) +\S/);
    expect(toolPackages(text).get('idevice_id')).toBe('libimobiledevice-utils');
    expect(toolPackages(text).get('ansible-playbook')).toBe('ansible');
  });
});
