import { describe, expect, it } from 'vitest';
import { copyrightLines, licenseIds, renderCopyright } from '../../packaging/copyright.js';

describe('debian/copyright', () => {
  const text = renderCopyright({
    agentLicense: 'MIT',
    nodeVersion: '24.21.0',
    modules: [
      { name: 'pino', version: '10.4.0', license: 'MIT', copyright: ['2016-2025 Matteo Collina, David Mark Clements and the Pino contributors'] },
      { name: 'node-forge', version: '1.4.3', license: '(BSD-3-Clause OR GPL-2.0)', copyright: [] },
      { name: '@devicefarmer/adbkit', version: '3.3.9', license: 'Apache-2.0', copyright: ['2013 CyberAgent, Inc.'] },
    ],
  });
  const paragraphs = text.trimEnd().split('\n\n');

  it('has a Files paragraph per bundled package, with its licence in DEP-5 words', () => {
    expect(paragraphs).toContain(
      'Files: usr/lib/device-agent/node_modules/node-forge/*\nCopyright: the authors of node-forge\nLicense: BSD-3-Clause or GPL-2.0\nComment: npm package node-forge 1.4.3',
    );
    expect(paragraphs.findIndex((p) => p.startsWith('Files: usr/lib/device-agent/node_modules/@devicefarmer/adbkit/*'))).toBeLessThan(
      paragraphs.findIndex((p) => p.startsWith('Files: usr/lib/device-agent/node_modules/pino/*')),
    );
  });

  it('has one stand-alone License paragraph for every licence named, and no other', () => {
    const standalone = paragraphs.filter((p) => p.startsWith('License: ')).map((p) => p.split('\n')[0]!.slice('License: '.length));
    expect(standalone).toEqual(['Apache-2.0', 'BSD-3-Clause', 'GPL-2.0', 'MIT', 'Node.js']);
    // Continuation lines only, blank ones written as " .".
    for (const p of paragraphs.filter((q) => q.startsWith('License: '))) for (const line of p.split('\n').slice(1)) expect(line).toMatch(/^ (\.|.*\S.*)$/);
  });

  it('refuses a licence it has no text for, rather than ship an incomplete file', () => {
    expect(() =>
      renderCopyright({ agentLicense: 'MIT', nodeVersion: '24.21.0', modules: [{ name: 'x', version: '1.0.0', license: 'WTFPL', copyright: [] }] }),
    ).toThrow(/no licence text for WTFPL/);
  });

  it('reads the SPDX ids of an expression', () => {
    expect(licenseIds('(BSD-3-Clause OR GPL-2.0)')).toEqual(['BSD-3-Clause', 'GPL-2.0']);
    expect(licenseIds('MIT')).toEqual(['MIT']);
  });

  it('finds the copyright lines of a licence file, not its boilerplate', () => {
    const mit =
      'The MIT License (MIT)\n\nCopyright (c) 2014 Sindre Sorhus\nCopyright © 2020 Jane Doe\n\nThe above copyright notice and this permission notice shall be included';
    expect(copyrightLines(mit)).toEqual(['2014 Sindre Sorhus', '2020 Jane Doe']);
    // The Apache licence's appendix is a template, not a notice.
    expect(copyrightLines('Apache License\n   Copyright [yyyy] [name of copyright owner]\n   Copyright {yyyy} {name of copyright owner}\n')).toEqual([]);
  });
});
