// Whom the agent's own files let in, judged as sshd's StrictModes judges authorized_keys. The settings file can name a
// command the agent runs and the cloud the key goes to: one any user may write or replace through its directory hands
// them the agent's powers, so it is refused. A key file others may read gives the key away: warned about. Root and the
// agent's user are trusted. Pure.

/** What stat says of a file or a directory. */
interface Ownership {
  mode: number;
  uid: number;
  gid: number;
}

const S_ISVTX = 0o1000;

/** Why a settings file may not be trusted, with the fix; undefined when it may. */
export function settingsFileProblem(path: string, file: Ownership, dir: Ownership & { path: string }, euid: number) {
  if (file.mode & 0o002) {
    return `${path} is writable by every user on the host (mode ${octal(file.mode)}), and it names commands the agent runs and where the API key goes: refused. Fix: chmod o-w ${path}`;
  }
  if (!trustedOwner(file.uid, euid)) {
    return `${path} is owned by uid ${file.uid}, neither root nor the user the agent runs as (uid ${euid}), who could change what the agent runs: refused. Fix: chown root ${path}`;
  }
  if (dir.mode & 0o002 && !(dir.mode & S_ISVTX)) {
    return `${path} lies in ${dir.path}, writable by every user on the host without the sticky bit (mode ${octal(dir.mode)}), so anyone may replace it: refused. Fix: chmod o-w ${dir.path}, or move the file`;
  }
  if (!trustedOwner(dir.uid, euid)) {
    return `${path} lies in ${dir.path}, owned by uid ${dir.uid}, neither root nor the user the agent runs as (uid ${euid}), who may replace it: refused. Fix: chown root ${dir.path}, or move the file`;
  }
}

/** Why a key file gives the key away, with the fix; undefined when only root, the agent's user and its group (or root's) may read it. */
export function keyFileExposure(path: string, file: Ownership, egid: number) {
  const byOthers = (file.mode & 0o004) !== 0;
  const byStrangerGroup = (file.mode & 0o040) !== 0 && file.gid !== 0 && file.gid !== egid;
  if (!byOthers && !byStrangerGroup) return undefined;
  const who = byOthers ? 'every user on the host' : `the members of group ${file.gid}`;
  return `the API key file ${path} is readable by ${who} (mode ${octal(file.mode)}): the key is theirs too. Fix: chmod 600 ${path} (or 640 with the group the agent runs as)`;
}

function trustedOwner(uid: number, euid: number) {
  return uid === 0 || uid === euid;
}

function octal(mode: number) {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}
