// "Did you mean": the known name closest to a mistyped one, compared without case, dashes and underscores, then by edit
// distance with transpositions, or as a prefix. Pure.

/** The closest candidate, or undefined when none is close enough to be a likely typo. */
export function closest(name: string, candidates: Iterable<string>, strip = '') {
  const typed = fold(name, strip);
  if (!typed) return undefined;
  // A typo changes a few characters, however long the name: a third of it at most.
  const limit = Math.max(1, Math.floor(typed.length / 3));
  let best: string | undefined;
  let bestScore = Infinity;
  let shortest: string | undefined;
  let longest: string | undefined;
  for (const candidate of candidates) {
    const known = fold(candidate, strip);
    const score = distance(typed, known);
    if (score <= limit && score < bestScore) {
      best = candidate;
      bestScore = score;
    }
    // A name cut short (USER for USERNAME) is worth a guess when nothing is closer.
    if (typed.length >= 3 && known.startsWith(typed) && (shortest === undefined || known.length < fold(shortest, strip).length)) shortest = candidate;
    // ... and so is one with a tail too many (WARNING for WARN).
    if (known.length >= 3 && typed.startsWith(known) && (longest === undefined || known.length > fold(longest, strip).length)) longest = candidate;
  }
  return best ?? shortest ?? longest;
}

/** Lower case without dashes and underscores, and without the given prefix. */
function fold(name: string, strip: string) {
  const bare = strip && name.toUpperCase().startsWith(strip.toUpperCase()) ? name.slice(strip.length) : name;
  return bare.toLowerCase().replace(/[-_]/g, '');
}

/** Edit distance (insert, delete, substitute, swap two neighbours), the optimal string alignment kind. */
export function distance(a: string, b: string) {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** "; did you mean X?" or nothing. */
export function didYouMean(suggestion: string | undefined) {
  return suggestion ? `; did you mean ${suggestion}?` : '';
}
