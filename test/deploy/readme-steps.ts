// Prints the commands of one numbered step of a README section: the first
// ```sh block of that step, its indentation removed; without a step, the
// section's first ```sh block. The deploy checks run the install exactly as
// the README says it, so a README that drifts from what works fails them.
//   node dist/test/deploy/readme-steps.js docs/install/systemd.md "## Install with systemd" 3
//   node dist/test/deploy/readme-steps.js README.md "## Build and test"
import { readFileSync } from 'node:fs';

export function readmeStep(readme: string, heading: string, step?: number): string {
  const start = readme.indexOf(`${heading}`);
  if (start < 0) throw new Error(`no section ${heading}`);
  const rest = readme.slice(start + heading.length);
  const end = rest.search(/\n#{2,4} /);
  const section = end < 0 ? rest : rest.slice(0, end);
  const items = section.split(/\n(?=\d+\. )/);
  const item = step === undefined ? section : items.find((i) => i.startsWith(`${step}. `));
  if (!item) throw new Error(`no step ${step} in ${heading}`);
  const block = /\n( *)```sh\n([\s\S]*?)\n\1```/.exec(item);
  if (!block) throw new Error(`${step === undefined ? '' : `step ${step} of `}${heading} has no sh block`);
  const indent = block[1]!.length;
  return block[2]!
    .split('\n')
    .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
    .join('\n');
}

if (process.argv[1]?.endsWith('readme-steps.js')) {
  const [file, heading, step] = process.argv.slice(2);
  process.stdout.write(readmeStep(readFileSync(file!, 'utf8'), heading!, step === undefined ? undefined : Number(step)) + '\n');
}
