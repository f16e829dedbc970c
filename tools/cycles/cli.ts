// The cycle check as a command: fails (exit 1) on an import cycle between
// folders of src/ or through a contract file, and names the edge to cut; exit
// 2 when the tree cannot be checked as given. argv[0] is the repository root
// (default: the working directory, as npm runs scripts there).
import { findCycles, SetupError } from './check.js';
import { formatFindings } from './report.js';

export function main(argv: readonly string[], stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): number {
  const root = argv[0] ?? process.cwd();
  try {
    const findings = findCycles(root);
    const text = formatFindings(findings);
    const failed = findings.folderCycles.length > 0 || findings.contractCycles.length > 0;
    (failed ? stderr : stdout).write(text);
    return failed ? 1 : 0;
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    stderr.write(`cycles: ${err.message}\n`);
    return 2;
  }
}
