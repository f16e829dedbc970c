// What a node id may be, and what a node-id file holds, read without I/O. An id with a control character would be
// changed on the wire or refused by the cloud, so it is refused here, where the operator can be told what to fix.
import { codePointName } from './json-syntax.js';

/** Longer than any id an operator types or the agent generates (a UUID is 36). */
const MAX_NODE_ID_CHARS = 200;

/** What is wrong with an id, or undefined when it is a fine one. */
export function nodeIdProblem(id: string) {
  if (id.length === 0) return 'is empty';
  if (id.length > MAX_NODE_ID_CHARS) return `is ${id.length} characters long (at most ${MAX_NODE_ID_CHARS})`;
  const control = /[\u0000-\u001f\u007f-\u009f]/.exec(id);
  if (control) return `holds the control character ${codePointName(control[0])} at position ${control.index + 1}`;
  if (id.includes('\ufffd') || !id.isWellFormed()) return 'holds bytes that are not UTF-8 text';
  return undefined;
}

export type KeptNodeId =
  | { kind: 'id'; id: string }
  /** Empty or only NUL bytes: what a power loss right after the file was first written leaves. */
  | { kind: 'lost' }
  /** Something the agent did not write. */
  | { kind: 'foreign'; problem: string };

export function parseNodeIdFile(text: string): KeptNodeId {
  if (/^[\s\u0000]*$/.test(text)) return { kind: 'lost' };
  // The agent writes the id and a newline; an editor may add a BOM or blanks.
  const id = text.replace(/^\ufeff/, '').trim();
  const problem = nodeIdProblem(id);
  return problem === undefined ? { kind: 'id', id } : { kind: 'foreign', problem };
}
