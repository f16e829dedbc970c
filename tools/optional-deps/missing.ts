// The optional packages of package-lock.json an install left out although
// this machine can run them: pure, the caller says what is on disk.
//
// npm leaves out an optional package whose `engines` exclude the Node.js npm
// itself runs on, and Debian 12's and Ubuntu 24.04's npm runs on Node 18:
// there `npm ci` left out rolldown's native binding (engines: node 20.19 or
// later), and vitest then did not start ("Cannot find native binding";
// issue 70). The project runs everything on its own Node 24
// (packaging/node-runtime.json), which those engines admit.

export interface LockEntry {
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
}

export interface Machine {
  platform: string;
  arch: string;
  /** glibc or musl; undefined where neither applies. */
  libc: string | undefined;
}

/** Whether `list` (npm's os, cpu or libc field) admits `value`: absent admits all, "!x" excludes x. */
function admits(list: string[] | undefined, value: string | undefined): boolean {
  if (!list?.length || value === undefined) return true;
  if (list.includes(`!${value}`)) return false;
  return list.includes(value) || list.every((v) => v.startsWith('!'));
}

/**
 * The lock's paths (node_modules/...) of the optional packages this machine
 * can run that are not on disk while a package that wants them is.
 */
export function missingOptional(packages: Record<string, LockEntry>, onDisk: (path: string) => boolean, machine: Machine): string[] {
  const wanted = new Set<string>();
  for (const [path, entry] of Object.entries(packages)) {
    if (path === '' || !onDisk(path)) continue;
    for (const name of Object.keys(entry.optionalDependencies ?? {})) wanted.add(`node_modules/${name}`);
  }
  return [...wanted].filter((path) => {
    const entry = packages[path];
    return (
      entry?.optional === true && !onDisk(path) && admits(entry.os, machine.platform) && admits(entry.cpu, machine.arch) && admits(entry.libc, machine.libc)
    );
  });
}
