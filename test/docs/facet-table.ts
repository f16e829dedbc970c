// The table "Per-device state" of docs/design/architecture.md, read as the
// tests check it: one row per facet, by the name its facetKey gives it.

export interface FacetRow {
  /** The facet's name, as `facetKey('name', keep)` gives it: the last `code` of the first cell. */
  name: string;
  /** Repository path of the file that declares its key. */
  declaredIn: string;
  keep: string;
  /** Repository paths of the files that write it, each named in `code` in its cell. */
  writers: string[];
}

const HEADER = '| facet | declared in | keep | written by | why |';

export function facetTable(doc: string): FacetRow[] {
  const at = doc.indexOf(HEADER);
  if (at < 0) throw new Error(`docs/design/architecture.md has no table headed ${HEADER}`);
  const lines = doc.slice(at).split('\n').slice(2);
  const rows = lines.slice(
    0,
    lines.findIndex((line) => !line.startsWith('| ')),
  );
  return rows.map((line) => {
    const [facet = '', declaredIn = '', keep = '', writtenBy = ''] = line.slice(2, -2).split(' | ');
    const paths = (cell: string): string[] => [...cell.matchAll(/`([\w./-]+\.ts)`/g)].map((m) => `src/${m[1]!}`);
    return {
      name: [...facet.matchAll(/`([^`]+)`/g)].at(-1)?.[1] ?? '',
      declaredIn: paths(declaredIn)[0] ?? '',
      keep,
      writers: paths(writtenBy),
    };
  });
}
