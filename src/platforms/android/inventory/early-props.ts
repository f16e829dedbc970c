// The property dump of an inventory as soon as it has arrived: getprop answers at once even on a phone whose framework
// commands answer seconds late, so the agent knows who the phone is long before the inventory ends. Pure.
import { props } from './probes/device.js';
import { marker, splitSections } from './script.js';

export class EarlyProps {
  /** What arrived: the shell client's own chunks, held here too (no copy) and read again only at a line's end. */
  private chunks: Buffer[] = [];
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
    // Searched as bytes, read a character a byte (latin1): the delimiters are ASCII, a UTF-8 sequence holds no ASCII
    // byte, and only the dump is decoded as UTF-8. Nothing of a chunk is copied to the heap but its ends: the output
    // copied at every chunk was the inventory's largest allocation (npm run bench).
    const keep = this.prefix.length + 3;
    const base = this.length;
    const seam = this.tail + chunk.toString('latin1', 0, keep);
    const before = this.tail.length;
    this.tail = (this.tail + chunk.toString('latin1', Math.max(0, chunk.length - keep))).slice(-keep);
    this.chunks.push(chunk);
    this.length += chunk.length;
    if (this.pending < 0) {
      // Begun before this chunk (across the seam), else within it.
      const across = seam.indexOf(this.prefix);
      const within = chunk.indexOf(this.prefix, 0, 'latin1');
      if (across >= 0 && across < before) this.pending = base - before + across;
      else if (within >= 0) this.pending = base + within;
      else return undefined;
    }
    // Cut into sections only once a delimiter's line has ended. A delimiter found now ends in this chunk, and one found
    // before had no line end after it then: a line end after it is in this chunk.
    const ended = chunk.indexOf(10, Math.max(0, this.pending - base)) >= 0 || this.tail.endsWith('>>>') || this.tail.endsWith('>>>\r');
    if (!ended) return undefined;
    const text = Buffer.concat(this.chunks).toString('latin1');
    const dump = splitSections(text).sections.get(props.section);
    if (dump === undefined) {
      // Every delimiter on an ended line was read: look again from the first on the line still open.
      this.pending = text.indexOf(this.prefix, text.lastIndexOf('\n') + 1);
      return undefined;
    }
    this.done = true;
    this.chunks = [];
    return Buffer.from(dump, 'latin1').toString('utf8');
  }
}
