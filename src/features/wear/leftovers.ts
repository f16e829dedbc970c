// Leftovers: the third-party packages a phone has that the lab's baseline
// (wear.baselinePackages) does not list. Pure. A pattern's `*` stands for any
// text; every other character is itself (a package name is the device's
// words: it is matched as text, never as a pattern).

/** The installed packages no baseline entry matches, in the order given. */
export function leftovers(installed: readonly string[], baseline: readonly string[]) {
  const patterns = baseline.map(toRegExp);
  return installed.filter((name) => !patterns.some((p) => p.test(name)));
}

function toRegExp(pattern: string) {
  return new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}
