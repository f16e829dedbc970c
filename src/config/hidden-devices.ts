// hiddenDevices: the udids the cloud should hide, as the operator types them.
// A udid holds no blank and no semicolon: Android's CDD has Build.SERIAL match
// ^([a-zA-Z0-9]{6,20})$, an iPhone's is hex with one dash, and adb prints a
// serial up to its first blank (`adb devices`), so a phone whose serial held
// one could not be listed. A network phone's may be its adb address
// (`127.0.0.1:5555`, `[fe80::1]:5555`), so colons, dots and brackets pass. An
// entry with a blank or a semicolon is a list written with the wrong
// separator, and one wrapped in quotes (or a JSON array in the variable) is a
// list written as code: each would hide nothing, silently, so it is refused as
// every other bad setting is. A well-formed udid no phone has is said once the
// phones are listed (src/report/hidden-devices.ts).

const EXAMPLE = 'e.g. R58M12AB,00008030-001A2B3C4D5E6F7A';

/** What is wrong with the list, or undefined when every entry can be a udid. */
export function checkHiddenDevices(value: string[]): string | undefined {
  for (const entry of value) {
    const separator = /[\s;]/.exec(entry);
    if (separator) {
      const what = separator[0] === ';' ? 'a semicolon' : /[ \u00a0]/.test(separator[0]) ? 'a space' : 'a blank';
      return `${JSON.stringify(entry)} holds ${what}, which no udid does: separate the udids with commas (${EXAMPLE})`;
    }
    if (/^\[?["']|["']\]?$/.test(entry))
      return `${JSON.stringify(entry)} is quoted, which no udid is: write the udids bare, separated by commas, without quotes or brackets (${EXAMPLE})`;
  }
  return undefined;
}
