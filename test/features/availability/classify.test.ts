import { describe, expect, it } from 'vitest';
import { classify, type PhoneLook } from '../../../src/features/availability/classify.js';

// The state of a phone and the layer it is blamed on, from values: the first
// rule that matches decides (docs/operations/availability.md).

const fine: PhoneLook = { record: { state: 'device', failures: 0, answered: true }, sourceUp: true, cloud: { status: 'AVAILABLE', refused: false } };
const look = (over: Partial<PhoneLook>): PhoneLook => ({ ...fine, ...over });

describe('classify', () => {
  it.each<[string, Partial<PhoneLook>, ReturnType<typeof classify>]>([
    ['in service: answering, stored AVAILABLE', {}, { state: 'in_service' }],
    ['gone: no record, nothing carries it', { record: undefined }, { state: 'gone', layer: 'port' }],
    ['gone with the USB layer blaming its hub', { record: undefined, usb: 'hub-power' }, { state: 'gone', layer: 'hub' }],
    ['the adb server down, listed or not', { sourceUp: false }, { state: 'in_transition', layer: 'adb' }],
    ['carried for a failed source', { record: undefined, carried: 'source-failed' }, { state: 'in_transition', layer: 'adb' }],
    ['off its port while the adb server is down: unplugged', { record: undefined, sourceUp: false, onPort: false }, { state: 'gone', layer: 'port' }],
    [
      'a charge pause, its port off and the adb server down',
      { record: undefined, carried: 'charge-paused', sourceUp: false, onPort: false },
      { state: 'in_transition', layer: 'host' },
    ],
    ['a charge pause', { record: undefined, carried: 'charge-paused' }, { state: 'in_transition', layer: 'host' }],
    ['off adb on its port, debugging off', { record: undefined, offSource: {} }, { state: 'needs_person', layer: 'readiness' }],
    ['off adb on its port, in its bootloader', { record: undefined, offSource: { mode: 'bootloader' } }, { state: 'needs_person', layer: 'phone' }],
    ['off adb, adb interface offered and not taken', { record: undefined, offSource: { mode: 'offers-source' } }, { state: 'in_transition', layer: 'adb' }],
    ['recovery asks for a person', { personNeeded: true }, { state: 'needs_person', layer: 'phone' }],
    ['unauthorized', { record: { state: 'unauthorized', failures: 0, answered: false } }, { state: 'needs_person', layer: 'readiness' }],
    ['no permissions', { record: { state: 'no permissions', failures: 0, answered: false } }, { state: 'needs_person', layer: 'host' }],
    [
      'offline, nothing blamed: what took it out, the phone when it was in service',
      { record: { state: 'offline', failures: 0, answered: false } },
      { state: 'auto_recovery', layer: 'carry', fallback: 'phone' },
    ],
    [
      'offline, the USB layer blaming its port',
      { record: { state: 'offline', failures: 0, answered: false }, usb: 'port' },
      { state: 'auto_recovery', layer: 'port' },
    ],
    [
      "offline and off its port by the kernel's word: unplugged, whatever adb still lists",
      { record: { state: 'offline', failures: 0, answered: true }, onPort: false },
      { state: 'gone', layer: 'port' },
    ],
    [
      '... the USB layer blaming its hub',
      { record: { state: 'offline', failures: 0, answered: true }, onPort: false, usb: 'hub' },
      { state: 'gone', layer: 'hub' },
    ],
    ['inventories failing', { record: { state: 'device', failures: 2, answered: true } }, { state: 'auto_recovery', layer: 'phone', held: true }],
    ['its first inventory not in yet', { record: { state: 'device', failures: 0, answered: false } }, { state: 'in_transition', layer: 'carry' }],
    [
      '... while the reports do not reach the cloud (its first answer waits for one): the cloud',
      { record: { state: 'device', failures: 0, answered: false }, cloudBehind: true },
      { state: 'in_transition', layer: 'cloud' },
    ],
    [
      'back on a new connection after answering on the last, stored AVAILABLE',
      { record: { state: 'device', failures: 0, answered: false, answeredBefore: true } },
      { state: 'in_service' },
    ],
    [
      '... the cloud holding it UNAVAILABLE',
      { record: { state: 'device', failures: 0, answered: false, answeredBefore: true }, cloud: { status: 'UNAVAILABLE', refused: false } },
      { state: 'in_transition', layer: 'carry' },
    ],
    ['on its port and off the list, no report yet', { record: undefined, onPort: true }, { state: 'needs_person', layer: 'readiness' }],
    ['off the list, the fact of a report before it left its port', { record: undefined, offSource: {}, onPort: false }, { state: 'gone', layer: 'port' }],
    ['readiness disables Appium', { readinessOut: true }, { state: 'needs_person', layer: 'readiness' }],
    ['the cloud refuses it', { cloud: { status: 'AVAILABLE', refused: true } }, { state: 'needs_person', layer: 'cloud' }],
    ['UNAVAILABLE for its own reason', { unavailable: true }, { state: 'needs_person', layer: 'phone' }],
    [
      'UNAVAILABLE in a report while its new connection had not answered: the cloud decides',
      { unavailable: true, record: { state: 'device', failures: 0, answered: false, answeredBefore: true } },
      { state: 'in_service' },
    ],
    ['the cloud not holding AVAILABLE yet', { cloud: { status: 'UNAVAILABLE', refused: false } }, { state: 'in_transition', layer: 'carry' }],
    [
      '... while the reports do not reach it',
      { cloud: { status: 'UNAVAILABLE', refused: false }, cloudBehind: true },
      { state: 'in_transition', layer: 'cloud' },
    ],
    [
      '... after a report composed while it was unplugged reached the cloud late: what took it out then',
      { cloud: { status: 'UNPLUGGED', refused: false }, outBefore: 'port' },
      { state: 'in_transition', layer: 'carry', fallback: 'port' },
    ],
    [
      '... and the reports do not reach the cloud now: the cloud',
      { cloud: { status: 'UNPLUGGED', refused: false }, outBefore: 'port', cloudBehind: true },
      { state: 'in_transition', layer: 'cloud' },
    ],
    [
      'quarantined and fine now: what took it out',
      { quarantined: { layer: 'port' }, cloud: { status: 'UNAVAILABLE', refused: false } },
      { state: 'quarantined', layer: 'carry', fallback: 'port' },
    ],
    [
      'quarantined and failing now: what fails it',
      { quarantined: { layer: 'port' }, record: { state: 'device', failures: 1, answered: true } },
      { state: 'quarantined', layer: 'phone' },
    ],
  ])('%s', (_, over, verdict) => {
    expect(classify(look(over))).toEqual(verdict);
  });
});
