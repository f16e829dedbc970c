// The catalogue of the kernel's USB messages the layer reads: every message of the USB core (hub.c, hcd.c, message.c,
// generic.c, config.c) and the xHCI driver (xhci.c, xhci-ring.c) that says something of a port, its device, a hub or a
// controller at the default levels, and the EHCI and OHCI controller deaths; each in every wording from kernel 4.9 to
// 7.2, read from their sources (4.9, 4.19, 5.4, 5.10, 5.15, 6.1, 6.12 and 7.2), plus the older per-port hub wordings. Data only: docs/reference/usb-kernel-messages.md
// is this table in words (test/features/usb/messages.test.ts checks they agree).
//
// What a message points at (`layer`) and whether it is a cause or a
// consequence (`role`):
//   cause        a failure of what it names: counted, and a verdict may rest on it
//   consequence  what follows a cause printed before it (a controller's death, the
//                controller refusing a slot or bandwidth, retries given up): never counted
//   fact         a state the layer follows (a device enumerated or gone, its serial,
//                which bus a controller drives), or a line it reads and leaves
import type { StringArg } from './format.js';

/** What the layer makes of a message. */
export type UsbEventKind =
  | 'enumeration-failed'
  | 'reset'
  | 'slow-speed'
  | 'hub-port-error'
  | 'over-current'
  | 'power-budget'
  | 'controller-limit'
  | 'controller-died'
  | 'controller-error'
  | 'hub-error'
  | 'new-device'
  | 'disconnect'
  | 'serial'
  | 'bus-registered'
  | 'controller-removed'
  | 'note';

/** The kinds that count as a failure of the port, hub or controller they name, when their role is a cause. */
export const FAILURE_KINDS: ReadonlySet<UsbEventKind> = new Set([
  'enumeration-failed',
  'reset',
  'slow-speed',
  'hub-port-error',
  'over-current',
  'power-budget',
  'controller-limit',
  'controller-died',
  'controller-error',
  'hub-error',
]);

export type Role = 'cause' | 'consequence' | 'fact';

/**
 * Whom the kernel names before the colon:
 *   device      "usb 1-1.4.2:"          the device on port 1-1.4.2
 *   port        "usb 1-1.4-port2:"      port 2 of hub 1-1.4 ("usb usb1-port6": root port 6 of bus 1)
 *   hub         "hub 1-1.4:1.0:"        hub 1-1.4's interface ("hub 1-0:1.0": bus 1's root hub)
 *   controller  "xhci_hcd 0000:00:14.0:" a host controller, by any of its drivers
 *   xhci        the same, by an xHCI driver only
 *   ehci, ohci  the same, by an EHCI or an OHCI driver only
 */
export type Named = 'device' | 'port' | 'hub' | 'controller' | 'xhci' | 'ehci' | 'ohci';

/** What the message points at, for the reference page: the layer attribution weighs it against. */
export type PointsAt = 'port, cable or phone' | 'port' | 'hub' | 'hub supply' | 'port load' | 'controller' | 'nothing';

export interface KernelMessage {
  id: string;
  named: Named;
  /** The kernel's format string, without its trailing newline. */
  format: string;
  /** What each `%s` holds, in order (format.ts). */
  args?: readonly StringArg[];
  /** The file and function that print it. */
  source: string;
  /** The kernels whose source prints it so ("4.9 – 7.2"; "before 4.9" for the older per-port wordings). */
  versions: string;
  kind: UsbEventKind;
  role: Role;
  pointsAt: PointsAt;
  /** What it means, in a few words, for the reference page. */
  says: string;
  /** The conversions whose value the event carries, by index: an older hub wording's port, a bus, a serial, a speed. */
  fields?: Partial<Record<'port' | 'bus' | 'serial' | 'speed', number>>;
  /** Values a conversion must have for the entry to match, by its index ("can't set config" with error -28 only). */
  values?: Partial<Record<number, readonly string[]>>;
}

const HUB = 'drivers/usb/core/hub.c';
const HCD = 'drivers/usb/core/hcd.c';
const MESSAGE = 'drivers/usb/core/message.c';
const GENERIC = 'drivers/usb/core/generic.c';
const CONFIG = 'drivers/usb/core/config.c';
const XHCI = 'drivers/usb/host/xhci.c';
const RING = 'drivers/usb/host/xhci-ring.c';
const ALL = '4.9 – 7.2';
const OLD = 'before 4.9 (3.x)';

const USB2_SPEEDS = ['low-speed', 'full-speed', 'high-speed', 'wireless', 'UNKNOWN'];
/** 4.9: "Plus"; 4.19 – 5.4: "Plus Gen 2" or " Gen 1", then "x2"; 5.10 on: " Plus", then " Gen 2x2" and the like. */
const SS_PLUS = ['', ' Plus', 'Plus Gen 2', ' Gen 1', 'Plus'];
const SS_RATE = ['', 'x2', ' Gen 2x2', ' Gen 2x1', ' Gen 1x2'];

const cause = (kind: UsbEventKind, pointsAt: PointsAt) => ({ kind, role: 'cause', pointsAt }) as const;
const consequence = (kind: UsbEventKind, pointsAt: PointsAt) => ({ kind, role: 'consequence', pointsAt }) as const;
const fact = (kind: UsbEventKind) => ({ kind, role: 'fact', pointsAt: 'nothing' }) as const;

/** An entry as written below: `versions` is every kernel read (ALL) unless it says otherwise. */
type Entry = Omit<KernelMessage, 'versions'> & { versions?: string };

const ENTRIES: readonly Entry[] = [
  // --- Enumeration: the device on a port (hub.c hub_port_init and the enumeration after it).
  {
    id: 'new-device',
    named: 'device',
    format: '%s %s USB device number %d using %s',
    args: [['new'], USB2_SPEEDS, 'word'],
    source: `${HUB} hub_port_init()`,
    ...fact('new-device'),
    says: 'a device enumerated on the port (its controller works)',
    fields: { speed: 1 },
  },
  {
    id: 'new-device-superspeed',
    named: 'device',
    format: '%s SuperSpeed%s%s USB device number %d using %s',
    args: [['new'], SS_PLUS, SS_RATE, 'word'],
    source: `${HUB} hub_port_init()`,
    ...fact('new-device'),
    says: 'a SuperSpeed device enumerated on the port',
  },
  {
    id: 'reset',
    named: 'device',
    format: '%s %s USB device number %d using %s',
    args: [['reset'], USB2_SPEEDS, 'word'],
    source: `${HUB} hub_port_init()`,
    ...cause('reset', 'port, cable or phone'),
    says: 'the device was reset (a driver recovering it from an error)',
  },
  {
    id: 'reset-superspeed',
    named: 'device',
    format: '%s SuperSpeed%s%s USB device number %d using %s',
    args: [['reset'], SS_PLUS, SS_RATE, 'word'],
    source: `${HUB} hub_port_init()`,
    ...cause('reset', 'port, cable or phone'),
    says: 'a SuperSpeed device was reset',
  },
  ...(['64', '8', 'all'] as const).map((size): Entry => ({
    id: `descriptor-read-${size}`,
    named: 'device',
    format: `device descriptor read/${size}, error %d`,
    source: `${HUB} hub_port_init()`,
    ...cause('enumeration-failed', 'port, cable or phone'),
    says: "the device's first descriptor could not be read (-71: a protocol error on the wire, -110: no answer)",
  })),
  {
    id: 'not-accepting-address',
    named: 'device',
    format: 'device not accepting address %d, error %d',
    source: `${HUB} hub_port_init()`,
    ...cause('enumeration-failed', 'port, cable or phone'),
    says: 'the device did not take the address the host gave it',
  },
  {
    id: 'hub-failed-to-enable',
    named: 'device',
    format: 'hub failed to enable device, error %d',
    source: `${HUB} hub_port_init()`,
    ...cause('enumeration-failed', 'port, cable or phone'),
    says: 'addressing the device (an xHCI Address Device command) failed',
  },
  {
    id: 'wrong-descriptor',
    named: 'device',
    format: 'got a wrong device descriptor, warm reset device',
    source: `${HUB} hub_port_init()`,
    ...cause('enumeration-failed', 'port, cable or phone'),
    says: 'the device descriptor read back was garbage',
  },
  {
    id: 'invalid-ep0',
    named: 'device',
    format: 'Invalid ep0 maxpacket: %d',
    source: `${HUB} hub_port_init()`,
    ...cause('enumeration-failed', 'port, cable or phone'),
    says: 'the device gave an impossible control packet size',
  },
  {
    id: 'ep0-changed',
    named: 'device',
    format: 'device reset changed ep0 maxpacket size!',
    source: `${HUB} hub_port_init()`,
    versions: '5.10.y, 6.1 – 7.2',
    ...cause('enumeration-failed', 'port, cable or phone'),
    says: 'after a reset the device answered as another device would',
  },
  {
    id: 'ep0-using',
    named: 'device',
    format: 'Using ep0 maxpacket: %d',
    source: `${HUB} hub_port_init()`,
    ...fact('note'),
    says: 'a SuperSpeed device gave a non-standard control packet size, which the kernel uses',
  },
  {
    id: 'parent-no-tt',
    named: 'device',
    format: 'parent hub has no TT',
    source: `${HUB} hub_port_init()`,
    ...cause('enumeration-failed', 'hub'),
    says: 'a low- or full-speed device behind a high-speed hub that cannot translate for it',
  },
  {
    id: 'slow-speed',
    named: 'device',
    format: 'not running at top speed; connect to a high speed hub',
    source: `${HUB} check_highspeed()`,
    ...cause('slow-speed', 'port, cable or phone'),
    says: 'a high-speed device came up at full speed (a charge-grade or worn cable, a full-speed hub)',
  },
  {
    id: 'cant-read-configurations',
    named: 'device',
    format: "can't read configurations, error %d",
    source: `${HUB} usb_enumerate_device()`,
    ...cause('enumeration-failed', 'port, cable or phone'),
    says: "the device's configurations could not be read",
  },
  {
    id: 'config-read',
    named: 'device',
    format: 'unable to read config index %d descriptor/%s: %d',
    args: [['start', 'all']],
    source: `${CONFIG} usb_get_configuration()`,
    ...cause('enumeration-failed', 'port, cable or phone'),
    says: 'a configuration descriptor could not be read',
  },
  {
    id: 'config-read-all',
    named: 'device',
    format: 'unable to read config index %d descriptor/%s',
    args: [['start', 'all']],
    source: `${CONFIG} usb_get_configuration()`,
    ...cause('enumeration-failed', 'port, cable or phone'),
    says: 'a configuration descriptor could not be read whole',
  },
  {
    id: 'config-short',
    named: 'device',
    format: 'config index %d descriptor too short (expected %i, got %i)',
    source: `${CONFIG} usb_get_configuration()`,
    ...cause('enumeration-failed', 'port, cable or phone'),
    says: 'a configuration descriptor came back short (in 7.2 only the full read, which goes on with it cut)',
  },
  {
    id: 'config-short-first',
    named: 'device',
    format: 'config index %d descriptor too short (asked for %zu, got %i)',
    source: `${CONFIG} usb_get_configuration()`,
    versions: '7.2',
    ...cause('enumeration-failed', 'port, cable or phone'),
    says: 'the first read of a configuration descriptor came back too short to use: enumeration fails',
  },
  {
    id: 'set-config-no-space',
    named: 'device',
    format: "can't set config #%d, error %d",
    values: { 1: ['-28'] },
    source: `${GENERIC} usb_generic_driver_probe(); ${HUB} usb_authorize_device()`,
    ...consequence('controller-limit', 'controller'),
    says: 'error -28 (no space): the configuration was refused for the bandwidth or resources the controller said it lacks just before',
  },
  {
    id: 'set-config',
    named: 'device',
    format: "can't set config #%d, error %d",
    source: `${GENERIC} usb_generic_driver_probe(); ${HUB} usb_authorize_device()`,
    ...cause('enumeration-failed', 'port, cable or phone'),
    says: 'the device refused or did not answer its configuration (other errors)',
  },
  {
    id: 'restore-config',
    named: 'device',
    format: "can't restore configuration #%d (error=%d)",
    source: `${HUB} usb_reset_and_verify_device()`,
    ...cause('enumeration-failed', 'port, cable or phone'),
    says: 'after a reset the device did not take its configuration back',
  },
  {
    id: 'restore-interface',
    named: 'device',
    format: 'failed to restore interface %d altsetting %d (error=%d)',
    source: `${HUB} usb_reset_and_verify_device()`,
    ...cause('enumeration-failed', 'port, cable or phone'),
    says: 'after a reset the device did not take an interface setting back',
  },
  {
    id: 'busted-hc',
    named: 'device',
    format: 'Busted HC?  Not enough HCD resources for old configuration.',
    source: `${HUB} usb_reset_and_verify_device()`,
    ...consequence('controller-limit', 'controller'),
    says: "after a reset the controller refused the device's bandwidth again; the controller's own line before it is the cause",
  },
  {
    id: 'firmware-changed',
    named: 'device',
    format: 'device firmware changed',
    source: `${HUB} usb_reset_and_verify_device()`,
    ...fact('note'),
    says: 'after a reset the device described itself differently, and is enumerated afresh',
  },
  {
    id: 'disconnect',
    named: 'device',
    format: 'USB disconnect, device number %d',
    source: `${HUB} usb_disconnect()`,
    ...fact('disconnect'),
    says: 'the device left the port',
  },
  {
    id: 'serial',
    named: 'device',
    format: '%s: %s',
    args: [['SerialNumber'], 'data'],
    source: `${HUB} show_string()`,
    ...fact('serial'),
    says: 'the serial the device gives (its own words: data, never matched as a message)',
    fields: { serial: 1 },
  },
  {
    id: 'device-string',
    named: 'device',
    format: '%s: %s',
    args: [['Product', 'Manufacturer'], 'data'],
    source: `${HUB} show_string()`,
    ...fact('note'),
    says: 'the product or manufacturer the device gives (its own words: data, never matched as a message)',
  },
  {
    id: 'device-found',
    named: 'device',
    format: 'New USB device found, idVendor=%04x, idProduct=%04x, bcdDevice=%2x.%02x',
    source: `${HUB} announce_device()`,
    versions: '4.19 – 7.2',
    ...fact('note'),
    says: "the device's ids",
  },
  {
    id: 'device-found-old',
    named: 'device',
    format: 'New USB device found, idVendor=%04x, idProduct=%04x',
    source: `${HUB} announce_device()`,
    versions: '4.9',
    ...fact('note'),
    says: "the device's ids",
  },
  {
    id: 'device-strings',
    named: 'device',
    format: 'New USB device strings: Mfr=%d, Product=%d, SerialNumber=%d',
    source: `${HUB} announce_device()`,
    ...fact('note'),
    says: 'which of its strings the device has (their numbers, not the strings)',
  },
  {
    id: 'string-descriptor-0',
    named: 'device',
    format: 'string descriptor 0 read error: %d',
    source: `${MESSAGE} usb_get_langid()`,
    ...fact('note'),
    says: 'the device gave no language for its strings (many devices without strings do this)',
  },
  {
    id: 'clear-tt',
    named: 'device',
    format: 'clear tt %d (%04x) error %d',
    source: `${HUB} hub_tt_work()`,
    ...cause('hub-error', 'hub'),
    says: "a hub's transaction translator could not be cleared: the hub named (the device line names the hub itself)",
  },
  {
    id: 'bus-powered-hub',
    named: 'device',
    format: "can't connect bus-powered hub to this port",
    source: `${HUB} hub_port_connect()`,
    ...cause('power-budget', 'hub supply'),
    says: 'a hub without a power supply behind a port that cannot feed it',
  },
  {
    id: 'config-over-power',
    named: 'device',
    format: 'new config #%d exceeds power limit by %dmA',
    source: `${MESSAGE} usb_set_configuration()`,
    ...cause('power-budget', 'hub supply'),
    says: 'the device asks more current than its hub gives a port',
  },
  {
    id: 'rejected-bus-power',
    named: 'device',
    format: 'rejected %d configuration%s due to insufficient available bus power',
    args: [['', 's']],
    source: `${GENERIC} usb_choose_configuration()`,
    ...cause('power-budget', 'hub supply'),
    says: 'the device was left unconfigured: its hub (bus-powered) cannot give what it asks',
  },
  {
    id: 'no-configuration',
    named: 'device',
    format: 'no configuration chosen from %d choice%s',
    args: [['', 's']],
    source: `${GENERIC} usb_choose_configuration()`,
    ...consequence('enumeration-failed', 'port, cable or phone'),
    says: 'the device was left unconfigured, for the reason said just before it',
  },
  // --- Bandwidth and resources: the controller refusing what a device asks.
  {
    id: 'bandwidth-device',
    named: 'device',
    format: 'Not enough bandwidth for new device state.',
    source: `${XHCI} xhci_configure_endpoint_result()`,
    ...cause('controller-limit', 'controller'),
    says: "the xHCI controller refused the device's endpoints: out of bandwidth (a Bandwidth Error completion)",
  },
  {
    id: 'resources-device',
    named: 'device',
    format: 'Not enough host controller resources for new device state.',
    source: `${XHCI} xhci_configure_endpoint_result()`,
    ...cause('controller-limit', 'controller'),
    says: "the xHCI controller refused the device's endpoints: out of endpoint resources (a Resource Error completion)",
  },
  {
    id: 'bandwidth-altsetting',
    named: 'device',
    format: 'Not enough bandwidth for altsetting %d',
    source: `${MESSAGE} usb_set_interface()`,
    ...consequence('controller-limit', 'controller'),
    says: "the core's word on the refusal the controller's driver printed just before it",
  },
  {
    id: 'device-not-responding-setup',
    named: 'device',
    format: 'Device not responding to setup %s.',
    args: [['address', 'context']],
    source: `${XHCI} xhci_setup_device()`,
    ...cause('enumeration-failed', 'port, cable or phone'),
    says: 'the device did not answer its address (a USB Transaction Error completion)',
  },
  {
    id: 'incompatible-setup',
    named: 'device',
    format: 'ERROR: Incompatible device for setup %s command',
    args: [['address', 'context']],
    source: `${XHCI} xhci_setup_device()`,
    ...cause('enumeration-failed', 'port, cable or phone'),
    says: 'the controller found the device incompatible while addressing it',
  },
  {
    id: 'incompatible-configure',
    named: 'device',
    format: 'ERROR: Incompatible device for endpoint configure command.',
    source: `${XHCI} xhci_configure_endpoint_result()`,
    ...cause('enumeration-failed', 'port, cable or phone'),
    says: "the controller found the device's endpoints incompatible",
  },
  // --- A hub's port ("usb 1-1-port3:"), the wording of 4.9 on.
  {
    id: 'port-cannot-reset',
    named: 'port',
    format: 'cannot %sreset (err = %d)',
    args: [['', 'warm ']],
    source: `${HUB} hub_port_reset()`,
    ...cause('hub-port-error', 'port, cable or phone'),
    says: 'the hub could not reset its port',
  },
  {
    id: 'port-cannot-enable',
    named: 'port',
    format: 'Cannot enable. Maybe the USB cable is bad?',
    source: `${HUB} hub_port_reset()`,
    ...cause('hub-port-error', 'port, cable or phone'),
    // 7.2 rate-limits it over all ports (10 in 5 s): the rest are dropped, counted only on a line that names no port.
    says: 'the port would not stay enabled after its reset (7.2: at most 10 such lines in 5 s over all ports)',
  },
  {
    id: 'port-cannot-disable',
    named: 'port',
    format: 'cannot disable (err = %d)',
    source: `${HUB} hub_port_disable()`,
    ...cause('hub-port-error', 'port, cable or phone'),
    says: 'the hub could not disable its port (every port of a failing hub says it)',
  },
  {
    id: 'port-connect-debounce',
    named: 'port',
    format: 'connect-debounce failed',
    source: `${HUB} hub_port_connect()`,
    ...cause('hub-port-error', 'port, cable or phone'),
    says: 'the connection kept coming and going (a loose plug or cable)',
  },
  {
    id: 'port-emi',
    named: 'port',
    format: 'disabled by hub (EMI?), re-enabling...',
    source: `${HUB} port_event()`,
    ...cause('hub-port-error', 'port, cable or phone'),
    says: 'the hub disabled the port on its own (interference, a marginal cable)',
  },
  {
    id: 'port-config-error',
    named: 'port',
    format: 'config error',
    source: `${HUB} port_event()`,
    ...cause('hub-port-error', 'port, cable or phone'),
    says: 'the USB 3 link of the port failed its configuration',
  },
  {
    id: 'port-over-current',
    named: 'port',
    format: 'over-current condition',
    source: `${HUB} port_event()`,
    ...cause('over-current', 'port load'),
    says: 'the port draws more than it may, still after its power came back: its phone or cable on one port, the hub supply on several',
  },
  {
    id: 'port-over-current-change',
    named: 'port',
    format: 'over-current change #%u',
    source: `${HUB} port_event() (debug level: printed only with dynamic debug on)`,
    versions: '4.19 – 7.2',
    ...fact('note'),
    says: 'an over-current came and went; the condition line says whether it stays',
  },
  {
    id: 'port-over-current-change-old',
    named: 'port',
    format: 'over-current change',
    source: `${HUB} port_event() (debug level)`,
    versions: '4.9',
    ...fact('note'),
    says: 'an over-current came and went; the condition line says whether it stays',
  },
  {
    id: 'port-over-budget',
    named: 'port',
    format: '%dmA is over %umA budget!',
    source: `${HUB} hub_power_remaining()`,
    ...cause('power-budget', 'hub supply'),
    says: "the device on the port asks more than the hub's budget for a port",
  },
  {
    id: 'port-unable-to-enumerate',
    named: 'port',
    format: 'unable to enumerate USB device',
    source: `${HUB} hub_port_connect()`,
    ...consequence('enumeration-failed', 'port, cable or phone'),
    says: 'the kernel gave up on the port after the failures it printed before',
  },
  {
    id: 'port-power-cycle',
    named: 'port',
    format: 'attempt power cycle',
    source: `${HUB} hub_port_connect()`,
    ...consequence('enumeration-failed', 'port, cable or phone'),
    says: 'the kernel power-cycles the port halfway through its retries',
  },
  {
    id: 'port-cannot-allocate',
    named: 'port',
    format: "couldn't allocate usb_device",
    source: `${HUB} hub_port_connect()`,
    ...consequence('controller-limit', 'controller'),
    says: 'the controller gave no slot for the device (its own line before it says why: out of slots, or dead)',
  },
  // --- A hub's port, the wordings of 3.x kernels: the hub's interface names the port.
  {
    id: 'hub-cannot-reset-port',
    named: 'hub',
    format: 'cannot reset port %d (err = %d)',
    source: `${HUB} hub_port_reset()`,
    versions: OLD,
    ...cause('hub-port-error', 'port, cable or phone'),
    says: 'the hub could not reset its port',
    fields: { port: 0 },
  },
  {
    id: 'hub-cannot-enable-port',
    named: 'hub',
    format: 'Cannot enable port %i.  Maybe the USB cable is bad?',
    source: `${HUB} hub_port_init()`,
    versions: OLD,
    ...cause('hub-port-error', 'port, cable or phone'),
    says: 'the port would not stay enabled after its reset',
    fields: { port: 0 },
  },
  {
    id: 'hub-cannot-disable-port',
    named: 'hub',
    format: 'cannot disable port %d (err = %d)',
    source: `${HUB} hub_port_disable()`,
    versions: OLD,
    ...cause('hub-port-error', 'port, cable or phone'),
    says: 'the hub could not disable its port',
    fields: { port: 0 },
  },
  {
    id: 'hub-connect-debounce',
    named: 'hub',
    format: 'connect-debounce failed, port %d disabled',
    source: `${HUB} hub_port_connect_change()`,
    versions: OLD,
    ...cause('hub-port-error', 'port, cable or phone'),
    says: 'the connection kept coming and going',
    fields: { port: 0 },
  },
  {
    id: 'hub-emi',
    named: 'hub',
    format: 'port %i disabled by hub (EMI?), re-enabling...',
    source: `${HUB} hub_events()`,
    versions: OLD,
    ...cause('hub-port-error', 'port, cable or phone'),
    says: 'the hub disabled the port on its own',
    fields: { port: 0 },
  },
  {
    id: 'hub-over-current-port',
    named: 'hub',
    format: 'over-current condition on port %d',
    source: `${HUB} hub_events()`,
    versions: OLD,
    ...cause('over-current', 'port load'),
    says: 'the port draws more than it may, still after its power came back',
    fields: { port: 0 },
  },
  {
    id: 'hub-over-current-change-port',
    named: 'hub',
    format: 'over-current change on port %d',
    source: `${HUB} hub_events() (debug level)`,
    versions: OLD,
    ...cause('over-current', 'port load'),
    says: 'an over-current on the port (printed where the condition line of later kernels is not)',
    fields: { port: 0 },
  },
  {
    id: 'hub-unable-to-enumerate-port',
    named: 'hub',
    format: 'unable to enumerate USB device on port %d',
    source: `${HUB} hub_port_connect_change()`,
    versions: OLD,
    ...consequence('enumeration-failed', 'port, cable or phone'),
    says: 'the kernel gave up on the port after the failures it printed before',
    fields: { port: 0 },
  },
  // --- The hub itself ("hub 1-1:1.0:"): no port named.
  {
    id: 'hub-port-status',
    named: 'hub',
    format: '%s failed (err = %d)',
    args: [['hub_ext_port_status', 'hub_port_status']],
    source: `${HUB} hub_ext_port_status()`,
    versions: `${ALL} (hub_ext_port_status); hub_port_status ${OLD}`,
    ...cause('hub-error', 'hub'),
    says: "the hub did not answer a request for a port's status: the hub, its upstream cable or its power",
  },
  {
    id: 'hub-hub-status',
    named: 'hub',
    format: '%s failed (err = %d)',
    args: [['hub_hub_status']],
    source: `${HUB} hub_hub_status()`,
    ...cause('hub-error', 'hub'),
    says: 'the hub did not answer a request for its own status',
  },
  {
    id: 'hub-get-status',
    named: 'hub',
    format: 'get_hub_status failed',
    source: `${HUB} hub_event()`,
    ...consequence('hub-error', 'hub'),
    says: 'follows the hub_hub_status failure printed just before it',
  },
  {
    id: 'hub-over-current',
    named: 'hub',
    format: 'over-current condition',
    source: `${HUB} hub_event()`,
    ...cause('over-current', 'hub supply'),
    says: 'the whole hub reports over-current: its power supply',
  },
  {
    id: 'hub-over-budget',
    named: 'hub',
    format: '%dmA over power budget!',
    source: `${HUB} hub_power_remaining()`,
    ...cause('power-budget', 'hub supply'),
    says: 'the devices on the hub ask more than it can give (a bus-powered hub)',
  },
  {
    id: 'hub-insufficient-power',
    named: 'hub',
    format: 'insufficient power available to use all downstream ports',
    source: `${HUB} hub_configure()`,
    ...cause('power-budget', 'hub supply'),
    says: 'the hub cannot power all its ports (a bus-powered hub)',
  },
  {
    id: 'hub-activate',
    named: 'hub',
    format: 'activate --> %d',
    source: `${HUB} hub_activate()`,
    ...cause('hub-error', 'hub'),
    says: "the hub's status pipe could not be started",
  },
  {
    id: 'hub-resubmit',
    named: 'hub',
    format: 'resubmit --> %d',
    source: `${HUB} hub_resubmit_irq_urb()`,
    ...cause('hub-error', 'hub'),
    says: "the hub's status pipe could not be restarted",
  },
  {
    id: 'hub-config-failed',
    named: 'hub',
    format: 'config failed, %s (err %d)',
    args: ['data'],
    source: `${HUB} hub_configure()`,
    ...cause('hub-error', 'hub'),
    says: 'the hub could not be set up',
  },
  {
    id: 'hub-depth',
    named: 'hub',
    format: 'set hub depth failed',
    source: `${HUB} hub_activate()`,
    ...cause('hub-error', 'hub'),
    says: 'a USB 3 hub could not be told its depth',
  },
  {
    id: 'hub-too-deep',
    named: 'hub',
    format: 'Unsupported bus topology: hub nested too deep',
    source: `${HUB} hub_probe()`,
    ...cause('hub-error', 'hub'),
    says: 'hubs chained deeper than USB allows: this hub is not used',
  },
  {
    id: 'hub-bad-descriptor',
    named: 'hub',
    format: 'bad descriptor, ignoring hub',
    source: `${HUB} hub_probe()`,
    ...cause('hub-error', 'hub'),
    says: 'the hub described itself wrongly: it is not used',
  },
  // --- The host controller.
  {
    id: 'bus-registered',
    named: 'controller',
    format: 'new USB bus registered, assigned bus number %d',
    source: `${HCD} usb_register_bus()`,
    ...fact('bus-registered'),
    says: 'which bus the controller drives (its ports are N-...); a controller that registers again works again',
    fields: { bus: 0 },
  },
  {
    id: 'hcd-remove',
    named: 'controller',
    format: 'remove, state %x',
    source: `${HCD} usb_remove_hcd()`,
    ...fact('controller-removed'),
    says: 'the controller is being removed (a driver unbound, a dock or card unplugged): what fails under it until it registers again is the removal, not a fault',
  },
  {
    id: 'bus-deregistered',
    named: 'controller',
    format: 'USB bus %d deregistered',
    source: `${HCD} usb_deregister_bus()`,
    ...fact('note'),
    says: 'the bus is gone with its controller',
  },
  {
    id: 'hc-died',
    named: 'controller',
    format: 'HC died; cleaning up',
    source: `${HCD} usb_hc_died()`,
    ...cause('controller-died', 'controller'),
    says: "the controller stopped (one death with its driver's line before it, when there is one)",
  },
  {
    id: 'xhci-assume-dead',
    named: 'xhci',
    format: 'xHCI host controller not responding, assume dead',
    source: `${RING} xhci_hc_died()`,
    versions: '4.19 – 7.2',
    ...cause('controller-died', 'controller'),
    says: 'the xHCI controller stopped answering and is given up',
  },
  {
    id: 'xhci-stop-endpoint',
    named: 'xhci',
    format: 'xHCI host not responding to stop endpoint command',
    source: `${RING} xhci_handle_command_timeout()`,
    versions: '6.1 – 7.2',
    ...cause('controller-died', 'controller'),
    says: 'the xHCI controller hung on a command; its death follows',
  },
  {
    id: 'xhci-stop-endpoint-old',
    named: 'xhci',
    format: 'xHCI host not responding to stop endpoint command.',
    source: `${RING} xhci_stop_endpoint_command_watchdog()`,
    versions: '4.9 – 5.15',
    ...cause('controller-died', 'controller'),
    says: 'the xHCI controller hung on a command; its death follows',
  },
  {
    id: 'xhci-dying-old',
    named: 'xhci',
    format: 'Assuming host is dying, halting host.',
    source: `${RING} xhci_stop_endpoint_command_watchdog()`,
    versions: '4.9',
    ...cause('controller-died', 'controller'),
    says: 'the xHCI controller hung and is halted',
  },
  {
    id: 'xhci-abort-ring',
    named: 'xhci',
    format: 'Abort failed to stop command ring: %d',
    source: `${RING} xhci_abort_cmd_ring()`,
    versions: '4.19 – 7.2',
    ...cause('controller-died', 'controller'),
    says: 'the xHCI controller would not stop its command ring; its death follows',
  },
  {
    id: 'xhci-stopped-ring-old',
    named: 'xhci',
    format: 'Stopped the command ring failed, maybe the host is dead',
    source: `${RING} xhci_abort_cmd_ring()`,
    versions: '4.9',
    ...cause('controller-died', 'controller'),
    says: 'the xHCI controller would not stop its command ring',
  },
  {
    id: 'xhci-host-system-error',
    named: 'xhci',
    format: 'WARNING: Host System Error',
    source: `${RING} xhci_irq()`,
    ...cause('controller-died', 'controller'),
    says: 'the xHCI controller halted itself on an internal error',
  },
  {
    id: 'xhci-halt-failed',
    named: 'xhci',
    format: 'Host halt failed, %d',
    source: `${XHCI} xhci_halt()`,
    versions: '4.19 – 7.2',
    ...cause('controller-died', 'controller'),
    says: 'the xHCI controller would not halt',
  },
  {
    id: 'xhci-reset-failed',
    named: 'xhci',
    format: 'Host not accessible, reset failed.',
    source: `${XHCI} xhci_reset()`,
    versions: '4.19 – 7.2',
    ...cause('controller-died', 'controller'),
    says: 'the xHCI controller is not there any more (removed, or its PCIe link down)',
  },
  {
    id: 'xhci-removed',
    named: 'xhci',
    format: 'Host controller not accessible, removed?',
    source: `${XHCI} xhci_gen_setup()`,
    // A stable backport: not in 6.1.176 nor 6.12.107.
    versions: '6.12.113, 7.2',
    ...cause('controller-died', 'controller'),
    says: 'the xHCI controller is not there any more',
  },
  {
    id: 'xhci-not-halted',
    named: 'xhci',
    format: 'Host controller not halted, aborting reset.',
    source: `${XHCI} xhci_reset()`,
    ...cause('controller-died', 'controller'),
    says: 'the xHCI controller could not be reset',
  },
  {
    id: 'xhci-start-timeout',
    named: 'xhci',
    format: 'Host took too long to start, waited %u microseconds.',
    source: `${XHCI} xhci_start()`,
    ...cause('controller-died', 'controller'),
    says: 'the xHCI controller did not start',
  },
  {
    id: 'xhci-resume-reinit',
    named: 'xhci',
    format: 'xHC error in resume, USBSTS 0x%x, Reinit',
    source: `${XHCI} xhci_resume()`,
    versions: '4.19 – 7.2',
    ...cause('controller-error', 'controller'),
    says: 'the xHCI controller lost its state and was started afresh: every device on it enumerates again',
  },
  {
    id: 'xhci-not-accessible',
    named: 'xhci',
    format: "Can't queue command, xHC not accessible",
    source: `${RING} queue_command()`,
    // A stable backport: not in 6.1.176 nor 6.12.107.
    versions: '6.1.190, 6.12.113, 7.2',
    ...consequence('controller-died', 'controller'),
    says: 'a command to a controller that is dead or gone',
  },
  {
    id: 'xhci-not-running',
    named: 'xhci',
    format: 'xHC is not running.',
    source: `${RING} handle_port_status()`,
    ...consequence('controller-died', 'controller'),
    says: 'a port event on a halted controller',
  },
  {
    id: 'xhci-setup-timeout',
    named: 'xhci',
    format: 'Timeout while waiting for setup device command',
    source: `${XHCI} xhci_setup_device()`,
    ...cause('controller-error', 'controller'),
    says: 'the xHCI controller did not complete an address command in 5 s (after a death, its echo)',
  },
  {
    id: 'xhci-configure-timeout',
    named: 'xhci',
    format: 'Timeout while waiting for configure endpoint command',
    source: `${XHCI} xhci_configure_endpoint_result()`,
    ...cause('controller-error', 'controller'),
    says: 'the xHCI controller did not complete a command in 5 s',
  },
  {
    id: 'xhci-evaluate-timeout',
    named: 'xhci',
    format: 'Timeout while waiting for evaluate context command',
    source: `${XHCI} xhci_evaluate_context_result()`,
    ...cause('controller-error', 'controller'),
    says: 'the xHCI controller did not complete a command in 5 s',
  },
  {
    id: 'xhci-reset-device-timeout',
    named: 'xhci',
    // "Timeout while waiting for reset device command" is the wording of 3.x logs; no kernel read prints it.
    format: 'Timeout waiting for reset device command',
    source: `${XHCI} xhci_discover_or_reset_device()`,
    ...cause('controller-error', 'controller'),
    says: 'the xHCI controller did not complete a command in 5 s',
  },
  {
    id: 'xhci-slot-none-left',
    named: 'xhci',
    format: 'Error while assigning device slot ID: %s',
    args: [['No Slots Available Error']],
    source: `${XHCI} xhci_alloc_dev()`,
    versions: '6.1 – 7.2 (with its completion code; not in 5.15)',
    ...cause('controller-limit', 'controller'),
    says: 'the xHCI controller has no device slot left: a device limit',
  },
  {
    id: 'xhci-slot-other',
    named: 'xhci',
    format: 'Error while assigning device slot ID: %s',
    args: ['data'],
    source: `${XHCI} xhci_alloc_dev()`,
    versions: '6.1 – 7.2',
    ...consequence('controller-limit', 'controller'),
    says: 'any other completion code (Command Aborted, Command Ring Stopped): a controller not answering, not a device limit',
  },
  {
    id: 'xhci-slot',
    named: 'xhci',
    format: 'Error while assigning device slot ID',
    source: `${XHCI} xhci_alloc_dev()`,
    versions: '4.9 – 5.15',
    ...cause('controller-limit', 'controller'),
    says: 'no device slot given (without its code: a limit, unless the controller died before it)',
  },
  {
    id: 'xhci-max-devices',
    named: 'xhci',
    format: 'Max number of devices this xHCI host supports is %u.',
    source: `${XHCI} xhci_alloc_dev()`,
    ...consequence('controller-limit', 'controller'),
    says: "printed after every slot error, whatever its cause: the slot error's line says which",
  },
  {
    id: 'xhci-endpoint-contexts',
    named: 'xhci',
    format: 'Not enough host resources, active endpoint contexts = %u',
    source: `${XHCI} xhci_alloc_dev(), xhci_configure_endpoint()`,
    ...cause('controller-limit', 'controller'),
    says: 'the xHCI controller has no endpoint context left (controllers with an endpoint limit)',
  },
  {
    id: 'xhci-alloc-virt-device',
    named: 'xhci',
    format: 'Could not allocate xHCI USB device data structures',
    source: `${XHCI} xhci_alloc_dev()`,
    ...cause('controller-limit', 'controller'),
    says: "the host could not set up the device's structures",
  },
  {
    id: 'xhci-bandwidth-tt',
    named: 'xhci',
    format: 'Not enough bandwidth on HS bus for newly activated TT.',
    source: `${XHCI} xhci_check_bw_table()`,
    ...cause('controller-limit', 'controller'),
    says: "the driver's own bandwidth table is full (controllers checked in software)",
  },
  {
    id: 'xhci-bandwidth-table',
    named: 'xhci',
    format: 'Not enough bandwidth. Proposed: %u, Max: %u',
    source: `${XHCI} xhci_check_bw_table()`,
    ...cause('controller-limit', 'controller'),
    says: "the driver's own bandwidth table is full",
  },
  {
    id: 'xhci-bandwidth',
    named: 'xhci',
    format: 'Not enough bandwidth',
    source: `${XHCI} xhci_configure_endpoint()`,
    ...consequence('controller-limit', 'controller'),
    says: 'follows the bandwidth table line just before it',
  },
  {
    id: 'xhci-setup-error',
    named: 'xhci',
    format: 'Setup ERROR: setup %s command for slot %d.',
    args: [['address', 'context']],
    source: `${XHCI} xhci_setup_device()`,
    ...consequence('enumeration-failed', 'port, cable or phone'),
    says: "an address command refused for the slot's state; the device's own line follows it",
  },
  {
    id: 'xhci-busted',
    named: 'xhci',
    format: 'ERROR Unknown event condition %u for slot %u ep %u , HC probably busted',
    source: `${RING} handle_tx_event()`,
    versions: '4.19 – 7.2',
    ...cause('controller-error', 'controller'),
    says: 'the xHCI controller answered what no controller should',
  },
  {
    id: 'ehci-fatal',
    named: 'ehci',
    format: 'fatal error',
    source: 'drivers/usb/host/ehci-hcd.c ehci_irq()',
    ...cause('controller-died', 'controller'),
    says: 'the EHCI controller stopped on a host system error',
  },
  {
    id: 'ohci-unrecoverable',
    named: 'ohci',
    format: 'OHCI Unrecoverable Error, disabled',
    source: 'drivers/usb/host/ohci-hcd.c ohci_irq()',
    ...cause('controller-died', 'controller'),
    says: 'the OHCI controller stopped',
  },
  {
    id: 'ohci-done-head',
    named: 'ohci',
    format: 'HcDoneHead not written back; disabled',
    source: 'drivers/usb/host/ohci-hcd.c io_watchdog_func()',
    ...cause('controller-died', 'controller'),
    says: "the OHCI controller's watchdog found it stuck",
  },
  {
    id: 'ohci-frame-counter',
    named: 'ohci',
    format: 'frame counter not updating; disabled',
    source: 'drivers/usb/host/ohci-hcd.c io_watchdog_func()',
    ...cause('controller-died', 'controller'),
    says: "the OHCI controller's watchdog found it stuck",
  },
];

export const KERNEL_MESSAGES: readonly KernelMessage[] = ENTRIES.map((e) => ({ ...e, versions: e.versions ?? ALL }));
