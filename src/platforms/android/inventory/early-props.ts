// The property dump of an inventory as soon as it has arrived: getprop answers at once even on a phone whose framework
// commands answer seconds late, so the agent knows who the phone is long before the inventory ends. Pure.
import { props } from './probes/device.js';
import { marker, splitSections } from './script.js';

export class EarlyProps {
  /** What arrived: the shell client's own chunks, held here too (no copy) and read again only at a delimiter's line end. */
  private chunks: Buffer[] = [];
  /** The end of what arrived: a delimiter, or its `>>>\r`, may span chunks. */
  private tail = '';
  /** A delimiter arrived whose line had not ended at the last look. */
  private open = false;
  private done = false;
  /** How every delimiter starts (`<<<DA:TOKEN:`). */
  private readonly prefix = marker('').slice(0, -3);

  /** One more chunk of output; returns the property dump once, when its section is complete, else undefined. */
  push(chunk: Buffer) {
    if (this.done) return undefined;
    // Searched as bytes, read a character a byte (latin1): the delimiters are ASCII, a UTF-8 sequence holds no ASCII
    // byte, and only the dump is decoded as UTF-8. Nothing of a chunk is copied to the heap but its ends: the output
    // copied at every chunk was the inventory's largest allocation (npm run bench).
    const keep = this.prefix.length + 3;
    const seam = this.tail + chunk.toString('latin1', 0, keep);
    this.tail = (this.tail + chunk.toString('latin1', Math.max(0, chunk.length - keep))).slice(-keep);
    this.chunks.push(chunk);
    this.open ||= seam.includes(this.prefix) || chunk.includes(this.prefix, 0, 'latin1');
    // Cut into sections only once a delimiter's line may have ended, not at every chunk.
    if (!this.open || !(chunk.includes(10) || this.tail.endsWith('>>>') || this.tail.endsWith('>>>\r'))) return undefined;
    const text = Buffer.concat(this.chunks).toString('latin1');
    const dump = splitSections(text).sections.get(props.section);
    // Every delimiter on an ended line was read: open while one is on the line not ended yet.
    this.open = text.includes(this.prefix, text.lastIndexOf('\n') + 1);
    if (dump === undefined) return undefined;
    this.done = true;
    this.chunks = [];
    return Buffer.from(dump, 'latin1').toString('utf8');
  }
}
