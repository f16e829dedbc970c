// Whether a followed replay file is still the one open: a recorder or logrotate renames it and starts a new one, or
// empties it in place. /dev/kmsg is never replaced; only regular files are asked.

/** What is known of the open file (fstat) and of the file its path names now (stat). */
export interface FileId {
  dev: number;
  ino: number;
}

/** Whether the open file is the 'same', 'replaced' or 'truncated'. `open`: the open file and its size; `atPath`: what the path names now (none while renamed); `position`: read so far. */
export function fileChange(open: FileId & { size: number }, atPath: FileId | undefined, position: number) {
  // A path with nothing at it is not a successor yet: the open file may still grow.
  if (atPath && (atPath.dev !== open.dev || atPath.ino !== open.ino)) return 'replaced';
  // Shorter than what was read of it: emptied in place and written from its start again.
  if (open.size < position) return 'truncated';
  return 'same';
}
