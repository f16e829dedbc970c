// The property dump of an inventory as soon as it has arrived, before the
// rest of the script has (issue 42). getprop answers at once even on a phone
// whose framework commands answer seconds late, and it is the first section
// of a connection's first inventory: from it the agent knows who the phone
// is long before the inventory ends. Pure: chunks in, the dump out.
import { StringDecoder } from 'node:string_decoder';
import { SECTION, splitSections } from './script.js';

export class EarlyProps {
  private readonly decoder = new StringDecoder('utf8');
  private text = '';
  private done = false;

  constructor(private readonly token?: string) {}

  /**
   * One more chunk of the script's output. Returns the property dump once,
   * the first time its section is complete (the next delimiter printed);
   * undefined before and after.
   */
  push(chunk: Buffer): string | undefined {
    if (this.done) return undefined;
    this.text += this.decoder.write(chunk);
    const dump = splitSections(this.text, this.token).sections.get(SECTION.props);
    if (dump === undefined) return undefined;
    this.done = true;
    // Nothing more is read: the whole output is the shell client's to keep.
    this.text = '';
    return dump;
  }
}
