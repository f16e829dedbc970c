// A phone the kernel has on a USB port but no source lists: not taken away, so not UNPLUGGED. Why, in its platform's
// words: an Android phone's USB debugging went off (an OS update does it) or it came up charge-only; usbmuxd did not
// take an iPhone. Pure.
import { STATUS_UNAVAILABLE, STATUS_UNPLUGGED, type DeviceInfo } from '../../cloud/types.js';
import type { OwedDevice } from '../../devices/presence.js';
import type { PlatformName, UsbInterface } from '../../platforms/source.js';

/** What the layer remembers of a phone listed before: who it is, what it enumerates as and its platform (its inventory is the readings'). */
export type ListedPhone = Pick<DeviceInfo, 'udid' | 'serialNumber' | 'platformName'>;

/** The interfaces the device on a port offers (sysfs.ts's interfacesOnPort). */
export type InterfacesOf = (port: string) => readonly UsbInterface[];

/** The ports sysfs shows each phone on, by its udid: those its source last placed it on (layer.ts's linkedOnUsb). */
export type PortsByUdid = ReadonlyMap<string, readonly string[]>;

/**
 * Where sysfs shows the device, and what no longer lists it and why, in its platform's words (finer when its interfaces
 * show more); undefined off every port. A serial on several ports names them all, and no port's interfaces speak for it.
 */
export function offSourceOf<Phone extends ListedPhone>(
  device: Phone,
  onUsb: PortsByUdid,
  platforms: readonly PlatformName[],
  interfacesOf: InterfacesOf = () => [],
) {
  const words = platforms.find((p) => p.platformName === device.platformName)?.offList;
  if (!words) return undefined;
  const ports = onUsb.get(device.udid) ?? [];
  if (ports.length === 0) return undefined;
  const port = ports.join(' or ');
  const shown = ports.length === 1 ? words.byInterfaces?.(interfacesOf(port)) : undefined;
  return { port, platformName: device.platformName, source: words.source, causes: shown?.causes ?? words.causes, ...(shown && { mode: shown.mode }) };
}

/** The devices to owe a report (carried with their last inventories): each of those gone from it that sysfs shows on a port. */
export function onUsbOffList(
  gone: readonly ListedPhone[],
  onUsb: PortsByUdid,
  platforms: readonly PlatformName[],
  interfacesOf: InterfacesOf = () => [],
): OwedDevice[] {
  return gone.flatMap((device) => {
    const off = offSourceOf(device, onUsb, platforms, interfacesOf);
    return off === undefined
      ? []
      : [
          {
            udid: device.udid,
            says: { state: 'no device', status: STATUS_UNAVAILABLE },
            why: `on USB port ${off.port} (the kernel enumerated it) but ${off.source} does not list it: ${off.causes}; not unplugged`,
          },
        ];
  });
}

/** How many listed devices the layer remembers for this: a lab's worth, the least recently listed dropped first. */
const MAX_REMEMBERED = 512;

/**
 * Remembers the devices listed now (the latest listing of each, and of each serial number, wins). A device that leaves
 * its list and its port is kept too: an OS update reboots the phone and brings it back without USB debugging. Kept, it
 * is reported only while sysfs shows it on a port; the least recently listed go first past a lab's worth.
 */
export function rememberListed(remembered: Map<string, ListedPhone>, present: readonly DeviceInfo[]) {
  const listed = present.filter((d) => d.status !== STATUS_UNPLUGGED);
  if (listed.length === 0) return;
  // Indexed once a call: pair by pair, 512 remembered against 60 listed cost 7-8 ms a report.
  const owners = Map.groupBy(remembered.keys(), (udid) => remembered.get(udid)!.serialNumber);
  const now = new Set(listed.map((d) => d.udid));
  for (const device of listed) {
    // An old name of this phone: its serial number exactly (a udid another phone gives is no link), not listed now (clones
    // listed together may share a serial).
    for (const udid of owners.get(device.serialNumber) ?? []) if (!now.has(udid)) remembered.delete(udid);
    remembered.delete(device.udid);
    remembered.set(device.udid, listedPhone(device));
  }
  while (remembered.size > MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
}

/** Who a listed device is, as the layer remembers it. */
export function listedPhone(device: ListedPhone) {
  return { udid: device.udid, serialNumber: device.serialNumber, platformName: device.platformName };
}
