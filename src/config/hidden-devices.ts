// hiddenDevices, as the operator types them. A udid holds no blank or semicolon (Android's CDD: ^[a-zA-Z0-9]{6,20}$;
// an iPhone's is hex with one dash; adb prints a serial up to its first blank), but a network phone's adb address
// passes (colons, dots, brackets). An entry with a blank or semicolon, in quotes, or a JSON array is a list written
// wrong that would hide nothing silently: refused. A well-formed udid no phone has is said once phones are listed.

const EXAMPLE = 'e.g. R58M12AB,00008030-001A2B3C4D5E6F7A';

/** What is wrong with the list, or undefined when every entry can be a udid. */
export function checkHiddenDevices(value: string[]) {
  for (const entry of value) {
    const separator = /[\s;]/.exec(entry);
    if (separator) {
      const what = separator[0] === ';' ? 'a semicolon' : /[ \u00a0]/.test(separator[0]) ? 'a space' : 'a blank';
      return `${JSON.stringify(entry)} holds ${what}, which no udid does: separate the udids with commas (${EXAMPLE})`;
    }
    if (/^\[?["']|["']\]?$/.test(entry))
      return `${JSON.stringify(entry)} is quoted, which no udid is: write the udids bare, separated by commas, without quotes or brackets (${EXAMPLE})`;
  }
}
