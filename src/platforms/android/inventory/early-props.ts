// The property dump of an inventory as soon as it has arrived: getprop answers at once even on a phone whose framework
// commands answer seconds late, so the agent knows who the phone is long before the inventory ends. Pure.
import { props } from './probes/device.js';
import { marker, splitSections } from './script.js';

export class EarlyProps {
  /** What arrived, one character a byte (latin1): the delimiters are ASCII, and the dump alone is decoded as UTF-8. */
  private pieces: string[] = [];
  private length = 0;
  /** The end of what arrived: a delimiter, or its `>>>\r`, may span chunks. */
  private tail = '';
  private done = false;
  /** How every delimiter starts (`<<<DA:TOKEN:`). */
  private readonly prefix = marker('').slice(0, -3);
  /** Where the first delimiter starts whose line had not ended at the last look (-1: none seen since). */
  private pending = -1;

  /** One more chunk of output; returns the property dump once, when its section is complete, else undefined. */
  push(chunk: Buffer) {
    if (this.done) return undefined;
    const piece = chunk.toString('latin1');
    const base = this.length;
    // Searched in the new piece and what ends the text before it, never the whole again: the output joined at every
    // chunk was the inventory's largest allocation (npm run bench).
    const before = this.tail;
    const near = before + piece;
    this.tail = near.slice(-this.prefix.length - 3);
    this.pieces.push(piece);
    this.length += piece.length;
    if (this.pending < 0) {
      const at = near.indexOf(this.prefix);
      if (at < 0) return undefined;
      this.pending = base - before.length + at;
    }
    // Cut into sections only once a delimiter's line has ended. A delimiter found now ends in this piece, and one found
    // before had no line end after it then: a line end after it is in this piece.
    const ended = piece.indexOf('\n', Math.max(0, this.pending - base)) >= 0 || near.endsWith('>>>') || near.endsWith('>>>\r');
    if (!ended) return undefined;
    const text = this.pieces.join('');
    this.pieces = [text];
    const dump = splitSections(text).sections.get(props.section);
    if (dump === undefined) {
      // Every delimiter on an ended line was read: look again from the first on the line still open.
      this.pending = text.indexOf(this.prefix, text.lastIndexOf('\n') + 1);
      return undefined;
    }
    this.done = true;
    // Nothing more is read: the whole output is the shell client's to keep.
    this.pieces = [];
    return Buffer.from(dump, 'latin1').toString('utf8');
  }
}
