// The property dump of an inventory as soon as it has arrived: getprop answers at once even on a phone whose framework
// commands answer seconds late, so the agent knows who the phone is long before the inventory ends. Pure.
import { StringDecoder } from 'node:string_decoder';
import { props } from './probes/device.js';
import { marker, splitSections } from './script.js';

export class EarlyProps {
  private readonly decoder = new StringDecoder('utf8');
  private text = '';
  private done = false;
  /** How every delimiter starts (`<<<DA:TOKEN:`). */
  private readonly prefix = marker('').slice(0, -3);
  /** Where the first delimiter starts whose line had not ended at the last look (-1: none seen since). */
  private pending = -1;
  /** The text searched for delimiters so far. */
  private searched = 0;

  /** One more chunk of output; returns the property dump once, when its section is complete, else undefined. */
  push(chunk: Buffer) {
    if (this.done) return undefined;
    this.text += this.decoder.write(chunk);
    // Cut into sections only once a delimiter's line has ended, not at every chunk (time in the square of the output).
    if (this.pending < 0) {
      this.pending = this.text.indexOf(this.prefix, Math.max(0, this.searched - this.prefix.length + 1));
      this.searched = this.text.length;
      if (this.pending < 0) return undefined;
    }
    if (this.text.indexOf('\n', this.pending) < 0 && !this.text.endsWith('>>>') && !this.text.endsWith('>>>\r')) return undefined;
    const dump = splitSections(this.text).sections.get(props.section);
    if (dump === undefined) {
      // Every delimiter on an ended line was read: look again from the first on the line still open.
      this.pending = this.text.indexOf(this.prefix, this.text.lastIndexOf('\n') + 1);
      this.searched = this.text.length;
      return undefined;
    }
    this.done = true;
    // Nothing more is read: the whole output is the shell client's to keep.
    this.text = '';
    return dump;
  }
}
