// The property dump of an inventory as soon as it has arrived, before the
// rest of the script has (issue 42). getprop answers at once even on a phone
// whose framework commands answer seconds late, and it is the first section
// of a connection's first inventory: from it the agent knows who the phone
// is long before the inventory ends. Pure: chunks in, the dump out.
import { StringDecoder } from 'node:string_decoder';
import { marker, SECTION, splitSections } from './script.js';

export class EarlyProps {
  private readonly decoder = new StringDecoder('utf8');
  private text = '';
  private done = false;
  /** How every delimiter starts (`<<<DA:TOKEN:`). */
  private readonly prefix: string;
  /** Where the first delimiter starts whose line had not ended at the last look (-1: none seen since). */
  private pending = -1;
  /** The text searched for delimiters so far. */
  private searched = 0;

  constructor(private readonly token?: string) {
    this.prefix = marker('', token).slice(0, -3);
  }

  /**
   * One more chunk of the script's output. Returns the property dump once,
   * the first time its section is complete (the next delimiter printed);
   * undefined before and after.
   */
  push(chunk: Buffer): string | undefined {
    if (this.done) return undefined;
    this.text += this.decoder.write(chunk);
    // A section ends at a delimiter, which counts once its line has ended (or
    // the text ends on its ">>>"): cut the text into sections only then, not
    // at every chunk, which on an output arriving in small chunks cost time
    // in the square of its length.
    if (this.pending < 0) {
      this.pending = this.text.indexOf(this.prefix, Math.max(0, this.searched - this.prefix.length + 1));
      this.searched = this.text.length;
      if (this.pending < 0) return undefined;
    }
    if (this.text.indexOf('\n', this.pending) < 0 && !this.text.endsWith('>>>') && !this.text.endsWith('>>>\r')) return undefined;
    const dump = splitSections(this.text, this.token).sections.get(SECTION.props);
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
