// Whether a newer Node.js of the bundled major line is out: the package
// bundles one exact runtime (the `node` devDependency), and a Node.js
// security release means a rebuild (docs/install/package.md, "Node.js
// security releases"). Pure: the registry's versions in, one line out.

/** [major, minor, patch] of a plain release version; undefined for a pre-release or garbage. */
function parse(version: string): [number, number, number] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(version.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

function newer(a: [number, number, number], b: [number, number, number]): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return false;
}

/** The newest release of the bundled version's major line among the registry's versions. */
export function newestOfLine(bundled: string, versions: readonly string[]): string | undefined {
  const own = parse(bundled);
  if (!own) return undefined;
  let best: [number, number, number] | undefined;
  for (const v of versions) {
    const p = parse(v);
    if (p && p[0] === own[0] && (!best || newer(p, best))) best = p;
  }
  return best?.join('.');
}

/** The one line `npm run package` prints: newer release, up to date, or the registry not asked. */
export function releaseLine(bundled: string, versions: readonly string[] | { error: string }): string {
  const major = bundled.split('.')[0];
  if ('error' in versions)
    return `package: Node.js ${bundled} bundled; the npm registry could not be asked for the newest ${major}.x (${versions.error}): check https://nodejs.org/en/blog/vulnerability before shipping`;
  const newest = newestOfLine(bundled, versions);
  const own = parse(bundled);
  const p = newest ? parse(newest) : undefined;
  if (own && p && newer(p, own))
    return `package: NEWER NODE.JS: ${newest} is on the registry, this package bundles ${bundled}; if it is a security release, set the node devDependency to ${newest} and rebuild (docs/install/package.md)`;
  return `package: Node.js ${bundled} bundled, the newest ${major}.x on the registry`;
}
