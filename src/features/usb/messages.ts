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

const cause = (kind: UsbEventKind) => ({ kind, role: 'cause' }) as const;
const consequence = (kind: UsbEventKind) => ({ kind, role: 'consequence' }) as const;
const fact = (kind: UsbEventKind) => ({ kind, role: 'fact' }) as const;

/** An entry as written below, in the run of entries that name the same. */
type Entry = Omit<KernelMessage, 'named'>;
const named = (who: Named, entries: readonly Entry[]) => entries.map((e) => ({ ...e, named: who }));

export const KERNEL_MESSAGES: readonly KernelMessage[] = [
  // --- Enumeration: the device on a port (hub.c hub_port_init and the enumeration after it).
  ...named('device', [
    {
      id: 'new-device',
      format: '%s %s USB device number %d using %s',
      args: [['new'], USB2_SPEEDS, 'word'],
      ...fact('new-device'),
      fields: { speed: 1 },
    },
    {
      id: 'new-device-superspeed',
      format: '%s SuperSpeed%s%s USB device number %d using %s',
      args: [['new'], SS_PLUS, SS_RATE, 'word'],
      ...fact('new-device'),
    },
    {
      id: 'reset',
      format: '%s %s USB device number %d using %s',
      args: [['reset'], USB2_SPEEDS, 'word'],
      ...cause('reset'),
    },
    {
      id: 'reset-superspeed',
      format: '%s SuperSpeed%s%s USB device number %d using %s',
      args: [['reset'], SS_PLUS, SS_RATE, 'word'],
      ...cause('reset'),
    },
    ...(['64', '8', 'all'] as const).map((size): Entry => ({
      id: `descriptor-read-${size}`,
      format: `device descriptor read/${size}, error %d`,
      ...cause('enumeration-failed'),
    })),
    {
      id: 'not-accepting-address',
      format: 'device not accepting address %d, error %d',
      ...cause('enumeration-failed'),
    },
    {
      id: 'hub-failed-to-enable',
      format: 'hub failed to enable device, error %d',
      ...cause('enumeration-failed'),
    },
    {
      id: 'wrong-descriptor',
      format: 'got a wrong device descriptor, warm reset device',
      ...cause('enumeration-failed'),
    },
    {
      id: 'invalid-ep0',
      format: 'Invalid ep0 maxpacket: %d',
      ...cause('enumeration-failed'),
    },
    {
      id: 'ep0-changed',
      format: 'device reset changed ep0 maxpacket size!',
      ...cause('enumeration-failed'),
    },
    {
      id: 'ep0-using',
      format: 'Using ep0 maxpacket: %d',
      ...fact('note'),
    },
    {
      id: 'parent-no-tt',
      format: 'parent hub has no TT',
      ...cause('enumeration-failed'),
    },
    {
      id: 'slow-speed',
      format: 'not running at top speed; connect to a high speed hub',
      ...cause('slow-speed'),
    },
    {
      id: 'cant-read-configurations',
      format: "can't read configurations, error %d",
      ...cause('enumeration-failed'),
    },
    {
      id: 'config-read',
      format: 'unable to read config index %d descriptor/%s: %d',
      args: [['start', 'all']],
      ...cause('enumeration-failed'),
    },
    {
      id: 'config-read-all',
      format: 'unable to read config index %d descriptor/%s',
      args: [['start', 'all']],
      ...cause('enumeration-failed'),
    },
    {
      id: 'config-short',
      format: 'config index %d descriptor too short (expected %i, got %i)',
      ...cause('enumeration-failed'),
    },
    {
      id: 'config-short-first',
      format: 'config index %d descriptor too short (asked for %zu, got %i)',
      ...cause('enumeration-failed'),
    },
    {
      id: 'set-config-no-space',
      format: "can't set config #%d, error %d",
      values: { 1: ['-28'] },
      ...consequence('controller-limit'),
    },
    {
      id: 'set-config',
      format: "can't set config #%d, error %d",
      ...cause('enumeration-failed'),
    },
    {
      id: 'restore-config',
      format: "can't restore configuration #%d (error=%d)",
      ...cause('enumeration-failed'),
    },
    {
      id: 'restore-interface',
      format: 'failed to restore interface %d altsetting %d (error=%d)',
      ...cause('enumeration-failed'),
    },
    {
      id: 'busted-hc',
      format: 'Busted HC?  Not enough HCD resources for old configuration.',
      ...consequence('controller-limit'),
    },
    {
      id: 'firmware-changed',
      format: 'device firmware changed',
      ...fact('note'),
    },
    {
      id: 'disconnect',
      format: 'USB disconnect, device number %d',
      ...fact('disconnect'),
    },
    {
      id: 'serial',
      format: '%s: %s',
      args: [['SerialNumber'], 'data'],
      ...fact('serial'),
      fields: { serial: 1 },
    },
    {
      id: 'device-string',
      format: '%s: %s',
      args: [['Product', 'Manufacturer'], 'data'],
      ...fact('note'),
    },
    {
      id: 'device-found',
      format: 'New USB device found, idVendor=%04x, idProduct=%04x, bcdDevice=%2x.%02x',
      ...fact('note'),
    },
    {
      id: 'device-found-old',
      format: 'New USB device found, idVendor=%04x, idProduct=%04x',
      ...fact('note'),
    },
    {
      id: 'device-strings',
      format: 'New USB device strings: Mfr=%d, Product=%d, SerialNumber=%d',
      ...fact('note'),
    },
    {
      id: 'string-descriptor-0',
      format: 'string descriptor 0 read error: %d',
      ...fact('note'),
    },
    {
      id: 'clear-tt',
      format: 'clear tt %d (%04x) error %d',
      ...cause('hub-error'),
    },
    {
      id: 'bus-powered-hub',
      format: "can't connect bus-powered hub to this port",
      ...cause('power-budget'),
    },
    {
      id: 'config-over-power',
      format: 'new config #%d exceeds power limit by %dmA',
      ...cause('power-budget'),
    },
    {
      id: 'rejected-bus-power',
      format: 'rejected %d configuration%s due to insufficient available bus power',
      args: [['', 's']],
      ...cause('power-budget'),
    },
    {
      id: 'no-configuration',
      format: 'no configuration chosen from %d choice%s',
      args: [['', 's']],
      ...consequence('enumeration-failed'),
    },
    // --- Bandwidth and resources: the controller refusing what a device asks.
    {
      id: 'bandwidth-device',
      format: 'Not enough bandwidth for new device state.',
      ...cause('controller-limit'),
    },
    {
      id: 'resources-device',
      format: 'Not enough host controller resources for new device state.',
      ...cause('controller-limit'),
    },
    {
      id: 'bandwidth-altsetting',
      format: 'Not enough bandwidth for altsetting %d',
      ...consequence('controller-limit'),
    },
    {
      id: 'device-not-responding-setup',
      format: 'Device not responding to setup %s.',
      args: [['address', 'context']],
      ...cause('enumeration-failed'),
    },
    {
      id: 'incompatible-setup',
      format: 'ERROR: Incompatible device for setup %s command',
      args: [['address', 'context']],
      ...cause('enumeration-failed'),
    },
    {
      id: 'incompatible-configure',
      format: 'ERROR: Incompatible device for endpoint configure command.',
      ...cause('enumeration-failed'),
    },
  ]),
  // --- A hub's port ("usb 1-1-port3:"), the wording of 4.9 on.
  ...named('port', [
    {
      id: 'port-cannot-reset',
      format: 'cannot %sreset (err = %d)',
      args: [['', 'warm ']],
      ...cause('hub-port-error'),
    },
    {
      id: 'port-cannot-enable',
      format: 'Cannot enable. Maybe the USB cable is bad?',
      ...cause('hub-port-error'),
      // 7.2 rate-limits it over all ports (10 in 5 s): the rest are dropped, counted only on a line that names no port.
    },
    {
      id: 'port-cannot-disable',
      format: 'cannot disable (err = %d)',
      ...cause('hub-port-error'),
    },
    {
      id: 'port-connect-debounce',
      format: 'connect-debounce failed',
      ...cause('hub-port-error'),
    },
    {
      id: 'port-emi',
      format: 'disabled by hub (EMI?), re-enabling...',
      ...cause('hub-port-error'),
    },
    {
      id: 'port-config-error',
      format: 'config error',
      ...cause('hub-port-error'),
    },
    {
      id: 'port-over-current',
      format: 'over-current condition',
      ...cause('over-current'),
    },
    {
      id: 'port-over-current-change',
      format: 'over-current change #%u',
      ...fact('note'),
    },
    {
      id: 'port-over-current-change-old',
      format: 'over-current change',
      ...fact('note'),
    },
    {
      id: 'port-over-budget',
      format: '%dmA is over %umA budget!',
      ...cause('power-budget'),
    },
    {
      id: 'port-unable-to-enumerate',
      format: 'unable to enumerate USB device',
      ...consequence('enumeration-failed'),
    },
    {
      id: 'port-power-cycle',
      format: 'attempt power cycle',
      ...consequence('enumeration-failed'),
    },
    {
      id: 'port-cannot-allocate',
      format: "couldn't allocate usb_device",
      ...consequence('controller-limit'),
    },
  ]),
  // --- A hub's port, the wordings of 3.x kernels: the hub's interface names the port.
  ...named('hub', [
    {
      id: 'hub-cannot-reset-port',
      format: 'cannot reset port %d (err = %d)',
      ...cause('hub-port-error'),
      fields: { port: 0 },
    },
    {
      id: 'hub-cannot-enable-port',
      format: 'Cannot enable port %i.  Maybe the USB cable is bad?',
      ...cause('hub-port-error'),
      fields: { port: 0 },
    },
    {
      id: 'hub-cannot-disable-port',
      format: 'cannot disable port %d (err = %d)',
      ...cause('hub-port-error'),
      fields: { port: 0 },
    },
    {
      id: 'hub-connect-debounce',
      format: 'connect-debounce failed, port %d disabled',
      ...cause('hub-port-error'),
      fields: { port: 0 },
    },
    {
      id: 'hub-emi',
      format: 'port %i disabled by hub (EMI?), re-enabling...',
      ...cause('hub-port-error'),
      fields: { port: 0 },
    },
    {
      id: 'hub-over-current-port',
      format: 'over-current condition on port %d',
      ...cause('over-current'),
      fields: { port: 0 },
    },
    {
      id: 'hub-over-current-change-port',
      format: 'over-current change on port %d',
      ...cause('over-current'),
      fields: { port: 0 },
    },
    {
      id: 'hub-unable-to-enumerate-port',
      format: 'unable to enumerate USB device on port %d',
      ...consequence('enumeration-failed'),
      fields: { port: 0 },
    },
    // --- The hub itself ("hub 1-1:1.0:"): no port named.
    {
      id: 'hub-port-status',
      format: '%s failed (err = %d)',
      args: [['hub_ext_port_status', 'hub_port_status']],
      ...cause('hub-error'),
    },
    {
      id: 'hub-hub-status',
      format: '%s failed (err = %d)',
      args: [['hub_hub_status']],
      ...cause('hub-error'),
    },
    {
      id: 'hub-get-status',
      format: 'get_hub_status failed',
      ...consequence('hub-error'),
    },
    {
      id: 'hub-over-current',
      format: 'over-current condition',
      ...cause('over-current'),
    },
    {
      id: 'hub-over-budget',
      format: '%dmA over power budget!',
      ...cause('power-budget'),
    },
    {
      id: 'hub-insufficient-power',
      format: 'insufficient power available to use all downstream ports',
      ...cause('power-budget'),
    },
    {
      id: 'hub-activate',
      format: 'activate --> %d',
      ...cause('hub-error'),
    },
    {
      id: 'hub-resubmit',
      format: 'resubmit --> %d',
      ...cause('hub-error'),
    },
    {
      id: 'hub-config-failed',
      format: 'config failed, %s (err %d)',
      args: ['data'],
      ...cause('hub-error'),
    },
    {
      id: 'hub-depth',
      format: 'set hub depth failed',
      ...cause('hub-error'),
    },
    {
      id: 'hub-too-deep',
      format: 'Unsupported bus topology: hub nested too deep',
      ...cause('hub-error'),
    },
    {
      id: 'hub-bad-descriptor',
      format: 'bad descriptor, ignoring hub',
      ...cause('hub-error'),
    },
  ]),
  // --- The host controller.
  ...named('controller', [
    {
      id: 'bus-registered',
      format: 'new USB bus registered, assigned bus number %d',
      ...fact('bus-registered'),
      fields: { bus: 0 },
    },
    {
      id: 'hcd-remove',
      format: 'remove, state %x',
      ...fact('controller-removed'),
    },
    {
      id: 'bus-deregistered',
      format: 'USB bus %d deregistered',
      ...fact('note'),
    },
    {
      id: 'hc-died',
      format: 'HC died; cleaning up',
      ...cause('controller-died'),
    },
  ]),
  ...named('xhci', [
    {
      id: 'xhci-assume-dead',
      format: 'xHCI host controller not responding, assume dead',
      ...cause('controller-died'),
    },
    {
      id: 'xhci-stop-endpoint',
      format: 'xHCI host not responding to stop endpoint command',
      ...cause('controller-died'),
    },
    {
      id: 'xhci-stop-endpoint-old',
      format: 'xHCI host not responding to stop endpoint command.',
      ...cause('controller-died'),
    },
    {
      id: 'xhci-dying-old',
      format: 'Assuming host is dying, halting host.',
      ...cause('controller-died'),
    },
    {
      id: 'xhci-abort-ring',
      format: 'Abort failed to stop command ring: %d',
      ...cause('controller-died'),
    },
    {
      id: 'xhci-stopped-ring-old',
      format: 'Stopped the command ring failed, maybe the host is dead',
      ...cause('controller-died'),
    },
    {
      id: 'xhci-host-system-error',
      format: 'WARNING: Host System Error',
      ...cause('controller-died'),
    },
    {
      id: 'xhci-halt-failed',
      format: 'Host halt failed, %d',
      ...cause('controller-died'),
    },
    {
      id: 'xhci-reset-failed',
      format: 'Host not accessible, reset failed.',
      ...cause('controller-died'),
    },
    {
      id: 'xhci-removed',
      format: 'Host controller not accessible, removed?',
      ...cause('controller-died'),
    },
    {
      id: 'xhci-not-halted',
      format: 'Host controller not halted, aborting reset.',
      ...cause('controller-died'),
    },
    {
      id: 'xhci-start-timeout',
      format: 'Host took too long to start, waited %u microseconds.',
      ...cause('controller-died'),
    },
    {
      id: 'xhci-resume-reinit',
      format: 'xHC error in resume, USBSTS 0x%x, Reinit',
      ...cause('controller-error'),
    },
    {
      id: 'xhci-not-accessible',
      format: "Can't queue command, xHC not accessible",
      ...consequence('controller-died'),
    },
    {
      id: 'xhci-not-running',
      format: 'xHC is not running.',
      ...consequence('controller-died'),
    },
    {
      id: 'xhci-setup-timeout',
      format: 'Timeout while waiting for setup device command',
      ...cause('controller-error'),
    },
    {
      id: 'xhci-configure-timeout',
      format: 'Timeout while waiting for configure endpoint command',
      ...cause('controller-error'),
    },
    {
      id: 'xhci-evaluate-timeout',
      format: 'Timeout while waiting for evaluate context command',
      ...cause('controller-error'),
    },
    {
      id: 'xhci-reset-device-timeout',
      // "Timeout while waiting for reset device command" is the wording of 3.x logs; no kernel read prints it.
      format: 'Timeout waiting for reset device command',
      ...cause('controller-error'),
    },
    {
      id: 'xhci-slot-none-left',
      format: 'Error while assigning device slot ID: %s',
      args: [['No Slots Available Error']],
      ...cause('controller-limit'),
    },
    {
      id: 'xhci-slot-other',
      format: 'Error while assigning device slot ID: %s',
      args: ['data'],
      ...consequence('controller-limit'),
    },
    {
      id: 'xhci-slot',
      format: 'Error while assigning device slot ID',
      ...cause('controller-limit'),
    },
    {
      id: 'xhci-max-devices',
      format: 'Max number of devices this xHCI host supports is %u.',
      ...consequence('controller-limit'),
    },
    {
      id: 'xhci-endpoint-contexts',
      format: 'Not enough host resources, active endpoint contexts = %u',
      ...cause('controller-limit'),
    },
    {
      id: 'xhci-alloc-virt-device',
      format: 'Could not allocate xHCI USB device data structures',
      ...cause('controller-limit'),
    },
    {
      id: 'xhci-bandwidth-tt',
      format: 'Not enough bandwidth on HS bus for newly activated TT.',
      ...cause('controller-limit'),
    },
    {
      id: 'xhci-bandwidth-table',
      format: 'Not enough bandwidth. Proposed: %u, Max: %u',
      ...cause('controller-limit'),
    },
    {
      id: 'xhci-bandwidth',
      format: 'Not enough bandwidth',
      ...consequence('controller-limit'),
    },
    {
      id: 'xhci-setup-error',
      format: 'Setup ERROR: setup %s command for slot %d.',
      args: [['address', 'context']],
      ...consequence('enumeration-failed'),
    },
    {
      id: 'xhci-busted',
      format: 'ERROR Unknown event condition %u for slot %u ep %u , HC probably busted',
      ...cause('controller-error'),
    },
  ]),
  ...named('ehci', [
    {
      id: 'ehci-fatal',
      format: 'fatal error',
      ...cause('controller-died'),
    },
  ]),
  ...named('ohci', [
    {
      id: 'ohci-unrecoverable',
      format: 'OHCI Unrecoverable Error, disabled',
      ...cause('controller-died'),
    },
    {
      id: 'ohci-done-head',
      format: 'HcDoneHead not written back; disabled',
      ...cause('controller-died'),
    },
    {
      id: 'ohci-frame-counter',
      format: 'frame counter not updating; disabled',
      ...cause('controller-died'),
    },
  ]),
];
