// The property dump of an inventory as soon as it has arrived: getprop answers at once even on a phone whose framework
// commands answer seconds late, so the agent knows who the phone is long before the inventory ends. Pure.
import { StringDecoder } from 'node:string_decoder';
import { SECTION, splitSections } from './script.js';

export class EarlyProps {
  private readonly decoder = new StringDecoder('utf8');
  private text = '';
  private done = false;

  constructor(private readonly token?: string) {}

  /** One more chunk of output; returns the property dump once, when its section is complete, else undefined. */
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
