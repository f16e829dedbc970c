// Whether a followed replay file is still the one the follower has open: a
// recording tool or logrotate renames it and starts a new one, or empties it
// in place (copytruncate). /dev/kmsg itself is never replaced or truncated;
// the follower asks this of regular files only.

/** What is known of the open file (fstat) and of the file its path names now (stat). */
export interface FileId {
  dev: number;
  ino: number;
}

export type FileChange = 'same' | 'replaced' | 'truncated';

/**
 * `open`: the open file, with its size now; `atPath`: the file the path names
 * now, undefined while there is none (renamed, its successor not yet made);
 * `position`: how far the follower has read the open one.
 */
export function fileChange(open: FileId & { size: number }, atPath: FileId | undefined, position: number): FileChange {
  // A path with nothing at it is not a successor yet: the open file may still grow.
  if (atPath && (atPath.dev !== open.dev || atPath.ino !== open.ino)) return 'replaced';
  // Shorter than what was read of it: emptied in place and written from its start again.
  if (open.size < position) return 'truncated';
  return 'same';
}
