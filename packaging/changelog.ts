// debian/changelog from the project's history: one entry per day that has
// commits (the version scheme is YYMM.DD, so a day is a version), newest
// first, each commit's subject a wrapped bullet; the top entry carries the
// version being packaged. Pure; changelog-cli.ts reads git log.

export interface Commit {
  /** Committer date, seconds since the epoch. */
  time: number;
  subject: string;
}

const WIDTH = 78;

/** YYMM.DD of a time, in UTC, as version.ts numbers a day's build. */
export function dayVersion(time: number): string {
  const d = new Date(time * 1000);
  const yy = String(d.getUTCFullYear() % 100).padStart(2, '0');
  const mm = String(d.getUTCMonth() + 1).padStart(2, '0');
  return `${yy}${mm}.${String(d.getUTCDate()).padStart(2, '0')}`;
}

/** Words wrapped to the width, the first line after "  * ", the rest after "    ". */
export function bullet(text: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.replace(/\s+/g, ' ').trim().split(' ')) {
    const room = WIDTH - 4;
    if (line && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l, i) => `${i === 0 ? '  * ' : '    '}${l}`);
}

/** RFC 2822 date, as dpkg wants it, in UTC. */
export function rfc2822(time: number): string {
  const d = new Date(time * 1000);
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()]!;
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()]!;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${day}, ${p(d.getUTCDate())} ${month} ${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}

export interface ChangelogInput {
  /** The version being packaged: the top entry's. */
  version: string;
  maintainer: string;
  /** Newest first, as git log lists them. */
  commits: readonly Commit[];
  /** The top entry's note: what it is built from. */
  note: string;
}

export function renderChangelog({ version, maintainer, commits, note }: ChangelogInput): string {
  const days = new Map<string, Commit[]>();
  for (const c of commits) {
    const day = dayVersion(c.time);
    days.set(day, [...(days.get(day) ?? []), c]);
  }
  const entries = [...days.entries()];
  if (entries.length === 0) entries.push([version, []]);
  // Days newer than the packaged version (a build of an older number) fold into its entry.
  return entries
    .map(([day, list], i) => {
      const v = i === 0 ? version : day;
      const newest = list[0]?.time ?? 0;
      const body = [...(i === 0 ? bullet(note) : []), ...list.flatMap((c) => bullet(c.subject))];
      return `device-agent (${v}) unstable; urgency=medium\n\n${body.join('\n')}\n\n -- ${maintainer}  ${rfc2822(newest)}\n`;
    })
    .join('\n');
}
