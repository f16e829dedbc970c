// The catalogue of the kernel's USB messages the layer reads: every message of the USB core (hub.c, hcd.c, message.c,
// generic.c, config.c) and the xHCI driver (xhci.c, xhci-ring.c) that says something of a port, its device, a hub or a
// controller at the default levels, and the EHCI and OHCI controller deaths; each in every wording from kernel 4.9 to
// 7.2, read from their sources (4.9, 4.19, 5.4, 5.10, 5.15, 6.1, 6.12 and 7.2), plus the older per-port hub wordings.
// Data only: docs/reference/usb-kernel-messages.md is this table with, for each message, the file and function that
// print it, the kernels that do, what it points at and what it says (test/features/usb/messages.test.ts checks that its
// formats, names and roles are these, in this order).
//
// Whether a message is a cause or a consequence (`role`):
//   cause        a failure of what it names: counted, and a verdict may rest on it
//   consequence  what follows a cause printed before it (a controller's death, the
//                controller refusing a slot or bandwidth, retries given up): never counted
//   fact         a state the layer follows (a device enumerated or gone, its serial,
//                which bus a controller drives), or a line it reads and leaves
import type { StringArg } from './format.js';

/** The kinds that count as a failure of the port, hub or controller they name, when their role is a cause. */
const FAILURES = [
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
] as const;

/** What the layer makes of a message. */
export type UsbEventKind = (typeof FAILURES)[number] | 'new-device' | 'disconnect' | 'serial' | 'bus-registered' | 'controller-removed' | 'note';

export const FAILURE_KINDS: ReadonlySet<UsbEventKind> = new Set(FAILURES);

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

export interface KernelMessage {
  id: string;
  named: Named;
  /** The kernel's format string, without its trailing newline. */
  format: string;
  /** What each `%s` holds, in order (format.ts). */
  args?: readonly StringArg[];
  kind: UsbEventKind;
  role: Role;
  /** The conversions whose value the event carries, by index: an older hub wording's port, a bus, a serial, a speed. */
  fields?: Partial<Record<'port' | 'bus' | 'serial' | 'speed', number>>;
  /** Values a conversion must have for the entry to match, by its index ("can't set config" with error -28 only). */
  values?: Partial<Record<number, readonly string[]>>;
}

const USB2_SPEEDS = ['low-speed', 'full-speed', 'high-speed', 'wireless', 'UNKNOWN'];
/** 4.9: "Plus"; 4.19 – 5.4: "Plus Gen 2" or " Gen 1", then "x2"; 5.10 on: " Plus", then " Gen 2x2" and the like. */
const SS_PLUS = ['', ' Plus', 'Plus Gen 2', ' Gen 1', 'Plus'];
const SS_RATE = ['', 'x2', ' Gen 2x2', ' Gen 2x1', ' Gen 1x2'];
/** The 3.x hub wordings name the port in their text: their first conversion. */
const PORT_IN_TEXT = { fields: { port: 0 } };
/** The setup command xHCI names ("address" or "context"). */
const SETUP_STEP = { args: [['address', 'context']] };

/** An entry as written below, by its role: its id, format and kind, and what more it says of its conversions. */
type Entry = Omit<KernelMessage, 'named'>;
const entry =
  (role: Role) =>
  (id: string, format: string, kind: UsbEventKind, more?: Pick<KernelMessage, 'args' | 'fields' | 'values'>): Entry => ({ id, format, kind, role, ...more });
const cause = entry('cause');
const consequence = entry('consequence');
const fact = entry('fact');
/** A run of entries that name the same. */
const named = (who: Named, entries: readonly Entry[]) => entries.map((e) => ({ ...e, named: who }));

export const KERNEL_MESSAGES: readonly KernelMessage[] = [
  // --- Enumeration: the device on a port (hub.c hub_port_init and the enumeration after it).
  ...named('device', [
    fact('new-device', '%s %s USB device number %d using %s', 'new-device', { args: [['new'], USB2_SPEEDS, 'word'], fields: { speed: 1 } }),
    fact('new-device-superspeed', '%s SuperSpeed%s%s USB device number %d using %s', 'new-device', { args: [['new'], SS_PLUS, SS_RATE, 'word'] }),
    cause('reset', '%s %s USB device number %d using %s', 'reset', { args: [['reset'], USB2_SPEEDS, 'word'] }),
    cause('reset-superspeed', '%s SuperSpeed%s%s USB device number %d using %s', 'reset', { args: [['reset'], SS_PLUS, SS_RATE, 'word'] }),
    cause('descriptor-read-64', 'device descriptor read/64, error %d', 'enumeration-failed'),
    cause('descriptor-read-8', 'device descriptor read/8, error %d', 'enumeration-failed'),
    cause('descriptor-read-all', 'device descriptor read/all, error %d', 'enumeration-failed'),
    cause('not-accepting-address', 'device not accepting address %d, error %d', 'enumeration-failed'),
    cause('hub-failed-to-enable', 'hub failed to enable device, error %d', 'enumeration-failed'),
    cause('wrong-descriptor', 'got a wrong device descriptor, warm reset device', 'enumeration-failed'),
    cause('invalid-ep0', 'Invalid ep0 maxpacket: %d', 'enumeration-failed'),
    cause('ep0-changed', 'device reset changed ep0 maxpacket size!', 'enumeration-failed'),
    fact('ep0-using', 'Using ep0 maxpacket: %d', 'note'),
    cause('parent-no-tt', 'parent hub has no TT', 'enumeration-failed'),
    cause('slow-speed', 'not running at top speed; connect to a high speed hub', 'slow-speed'),
    cause('cant-read-configurations', "can't read configurations, error %d", 'enumeration-failed'),
    cause('config-read', 'unable to read config index %d descriptor/%s: %d', 'enumeration-failed', { args: [['start', 'all']] }),
    cause('config-read-all', 'unable to read config index %d descriptor/%s', 'enumeration-failed', { args: [['start', 'all']] }),
    cause('config-short', 'config index %d descriptor too short (expected %i, got %i)', 'enumeration-failed'),
    cause('config-short-first', 'config index %d descriptor too short (asked for %zu, got %i)', 'enumeration-failed'),
    consequence('set-config-no-space', "can't set config #%d, error %d", 'controller-limit', { values: { 1: ['-28'] } }),
    cause('set-config', "can't set config #%d, error %d", 'enumeration-failed'),
    cause('restore-config', "can't restore configuration #%d (error=%d)", 'enumeration-failed'),
    cause('restore-interface', 'failed to restore interface %d altsetting %d (error=%d)', 'enumeration-failed'),
    consequence('busted-hc', 'Busted HC?  Not enough HCD resources for old configuration.', 'controller-limit'),
    fact('firmware-changed', 'device firmware changed', 'note'),
    fact('disconnect', 'USB disconnect, device number %d', 'disconnect'),
    fact('serial', '%s: %s', 'serial', { args: [['SerialNumber'], 'data'], fields: { serial: 1 } }),
    fact('device-string', '%s: %s', 'note', { args: [['Product', 'Manufacturer'], 'data'] }),
    fact('device-found', 'New USB device found, idVendor=%04x, idProduct=%04x, bcdDevice=%2x.%02x', 'note'),
    fact('device-found-old', 'New USB device found, idVendor=%04x, idProduct=%04x', 'note'),
    fact('device-strings', 'New USB device strings: Mfr=%d, Product=%d, SerialNumber=%d', 'note'),
    fact('string-descriptor-0', 'string descriptor 0 read error: %d', 'note'),
    cause('clear-tt', 'clear tt %d (%04x) error %d', 'hub-error'),
    cause('bus-powered-hub', "can't connect bus-powered hub to this port", 'power-budget'),
    cause('config-over-power', 'new config #%d exceeds power limit by %dmA', 'power-budget'),
    cause('rejected-bus-power', 'rejected %d configuration%s due to insufficient available bus power', 'power-budget', { args: [['', 's']] }),
    consequence('no-configuration', 'no configuration chosen from %d choice%s', 'enumeration-failed', { args: [['', 's']] }),
    // --- Bandwidth and resources: the controller refusing what a device asks.
    cause('bandwidth-device', 'Not enough bandwidth for new device state.', 'controller-limit'),
    cause('resources-device', 'Not enough host controller resources for new device state.', 'controller-limit'),
    consequence('bandwidth-altsetting', 'Not enough bandwidth for altsetting %d', 'controller-limit'),
    cause('device-not-responding-setup', 'Device not responding to setup %s.', 'enumeration-failed', SETUP_STEP),
    cause('incompatible-setup', 'ERROR: Incompatible device for setup %s command', 'enumeration-failed', SETUP_STEP),
    cause('incompatible-configure', 'ERROR: Incompatible device for endpoint configure command.', 'enumeration-failed'),
  ]),
  // --- A hub's port ("usb 1-1-port3:"), the wording of 4.9 on.
  ...named('port', [
    cause('port-cannot-reset', 'cannot %sreset (err = %d)', 'hub-port-error', { args: [['', 'warm ']] }),
    // 7.2 rate-limits it over all ports (10 in 5 s): the rest are dropped, counted only on a line that names no port.
    cause('port-cannot-enable', 'Cannot enable. Maybe the USB cable is bad?', 'hub-port-error'),
    cause('port-cannot-disable', 'cannot disable (err = %d)', 'hub-port-error'),
    cause('port-connect-debounce', 'connect-debounce failed', 'hub-port-error'),
    cause('port-emi', 'disabled by hub (EMI?), re-enabling...', 'hub-port-error'),
    cause('port-config-error', 'config error', 'hub-port-error'),
    cause('port-over-current', 'over-current condition', 'over-current'),
    fact('port-over-current-change', 'over-current change #%u', 'note'),
    fact('port-over-current-change-old', 'over-current change', 'note'),
    cause('port-over-budget', '%dmA is over %umA budget!', 'power-budget'),
    consequence('port-unable-to-enumerate', 'unable to enumerate USB device', 'enumeration-failed'),
    consequence('port-power-cycle', 'attempt power cycle', 'enumeration-failed'),
    consequence('port-cannot-allocate', "couldn't allocate usb_device", 'controller-limit'),
  ]),
  // --- A hub's port, the wordings of 3.x kernels: the hub's interface names the port.
  ...named('hub', [
    cause('hub-cannot-reset-port', 'cannot reset port %d (err = %d)', 'hub-port-error', PORT_IN_TEXT),
    cause('hub-cannot-enable-port', 'Cannot enable port %i.  Maybe the USB cable is bad?', 'hub-port-error', PORT_IN_TEXT),
    cause('hub-cannot-disable-port', 'cannot disable port %d (err = %d)', 'hub-port-error', PORT_IN_TEXT),
    cause('hub-connect-debounce', 'connect-debounce failed, port %d disabled', 'hub-port-error', PORT_IN_TEXT),
    cause('hub-emi', 'port %i disabled by hub (EMI?), re-enabling...', 'hub-port-error', PORT_IN_TEXT),
    cause('hub-over-current-port', 'over-current condition on port %d', 'over-current', PORT_IN_TEXT),
    cause('hub-over-current-change-port', 'over-current change on port %d', 'over-current', PORT_IN_TEXT),
    consequence('hub-unable-to-enumerate-port', 'unable to enumerate USB device on port %d', 'enumeration-failed', PORT_IN_TEXT),
    // --- The hub itself ("hub 1-1:1.0:"): no port named.
    cause('hub-port-status', '%s failed (err = %d)', 'hub-error', { args: [['hub_ext_port_status', 'hub_port_status']] }),
    cause('hub-hub-status', '%s failed (err = %d)', 'hub-error', { args: [['hub_hub_status']] }),
    consequence('hub-get-status', 'get_hub_status failed', 'hub-error'),
    cause('hub-over-current', 'over-current condition', 'over-current'),
    cause('hub-over-budget', '%dmA over power budget!', 'power-budget'),
    cause('hub-insufficient-power', 'insufficient power available to use all downstream ports', 'power-budget'),
    cause('hub-activate', 'activate --> %d', 'hub-error'),
    cause('hub-resubmit', 'resubmit --> %d', 'hub-error'),
    cause('hub-config-failed', 'config failed, %s (err %d)', 'hub-error', { args: ['data'] }),
    cause('hub-depth', 'set hub depth failed', 'hub-error'),
    cause('hub-too-deep', 'Unsupported bus topology: hub nested too deep', 'hub-error'),
    cause('hub-bad-descriptor', 'bad descriptor, ignoring hub', 'hub-error'),
  ]),
  // --- The host controller.
  ...named('controller', [
    fact('bus-registered', 'new USB bus registered, assigned bus number %d', 'bus-registered', { fields: { bus: 0 } }),
    fact('hcd-remove', 'remove, state %x', 'controller-removed'),
    fact('bus-deregistered', 'USB bus %d deregistered', 'note'),
    cause('hc-died', 'HC died; cleaning up', 'controller-died'),
  ]),
  ...named('xhci', [
    cause('xhci-assume-dead', 'xHCI host controller not responding, assume dead', 'controller-died'),
    cause('xhci-stop-endpoint', 'xHCI host not responding to stop endpoint command', 'controller-died'),
    cause('xhci-stop-endpoint-old', 'xHCI host not responding to stop endpoint command.', 'controller-died'),
    cause('xhci-dying-old', 'Assuming host is dying, halting host.', 'controller-died'),
    cause('xhci-abort-ring', 'Abort failed to stop command ring: %d', 'controller-died'),
    cause('xhci-stopped-ring-old', 'Stopped the command ring failed, maybe the host is dead', 'controller-died'),
    cause('xhci-host-system-error', 'WARNING: Host System Error', 'controller-died'),
    cause('xhci-halt-failed', 'Host halt failed, %d', 'controller-died'),
    cause('xhci-reset-failed', 'Host not accessible, reset failed.', 'controller-died'),
    cause('xhci-removed', 'Host controller not accessible, removed?', 'controller-died'),
    cause('xhci-not-halted', 'Host controller not halted, aborting reset.', 'controller-died'),
    cause('xhci-start-timeout', 'Host took too long to start, waited %u microseconds.', 'controller-died'),
    cause('xhci-resume-reinit', 'xHC error in resume, USBSTS 0x%x, Reinit', 'controller-error'),
    consequence('xhci-not-accessible', "Can't queue command, xHC not accessible", 'controller-died'),
    consequence('xhci-not-running', 'xHC is not running.', 'controller-died'),
    cause('xhci-setup-timeout', 'Timeout while waiting for setup device command', 'controller-error'),
    cause('xhci-configure-timeout', 'Timeout while waiting for configure endpoint command', 'controller-error'),
    cause('xhci-evaluate-timeout', 'Timeout while waiting for evaluate context command', 'controller-error'),
    // "Timeout while waiting for reset device command" is the wording of 3.x logs; no kernel read prints it.
    cause('xhci-reset-device-timeout', 'Timeout waiting for reset device command', 'controller-error'),
    cause('xhci-slot-none-left', 'Error while assigning device slot ID: %s', 'controller-limit', { args: [['No Slots Available Error']] }),
    consequence('xhci-slot-other', 'Error while assigning device slot ID: %s', 'controller-limit', { args: ['data'] }),
    cause('xhci-slot', 'Error while assigning device slot ID', 'controller-limit'),
    consequence('xhci-max-devices', 'Max number of devices this xHCI host supports is %u.', 'controller-limit'),
    cause('xhci-endpoint-contexts', 'Not enough host resources, active endpoint contexts = %u', 'controller-limit'),
    cause('xhci-alloc-virt-device', 'Could not allocate xHCI USB device data structures', 'controller-limit'),
    cause('xhci-bandwidth-tt', 'Not enough bandwidth on HS bus for newly activated TT.', 'controller-limit'),
    cause('xhci-bandwidth-table', 'Not enough bandwidth. Proposed: %u, Max: %u', 'controller-limit'),
    consequence('xhci-bandwidth', 'Not enough bandwidth', 'controller-limit'),
    consequence('xhci-setup-error', 'Setup ERROR: setup %s command for slot %d.', 'enumeration-failed', SETUP_STEP),
    cause('xhci-busted', 'ERROR Unknown event condition %u for slot %u ep %u , HC probably busted', 'controller-error'),
  ]),
  ...named('ehci', [cause('ehci-fatal', 'fatal error', 'controller-died')]),
  ...named('ohci', [
    cause('ohci-unrecoverable', 'OHCI Unrecoverable Error, disabled', 'controller-died'),
    cause('ohci-done-head', 'HcDoneHead not written back; disabled', 'controller-died'),
    cause('ohci-frame-counter', 'frame counter not updating; disabled', 'controller-died'),
  ]),
];
