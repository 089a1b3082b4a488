// The addresses a listener bound to `host` can be reached on, for people: the start-up banner's links, and the
// host the dashboard tells Home Assistant users to enter.
import { isIP } from 'node:net';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';

type Interfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

const ANY = new Set(['0.0.0.0', '::', '']);

/** IPv6 link-local addresses need a zone a URL cannot carry well; nobody types them. */
function usable(info: NetworkInterfaceInfo): boolean {
  return info.family === 'IPv4' || (!info.address.toLowerCase().startsWith('fe80:') && !info.internal);
}

/**
 * The IP addresses a listener on `host` answers on, loopback first: every interface's for a wildcard bind
 * (IPv4 for 0.0.0.0; IPv6 too for ::), else `host` itself. A DNS name is kept as given.
 */
export function reachableAddresses(host: string, interfaces: Interfaces = networkInterfaces()): string[] {
  if (!ANY.has(host)) return [host];
  const all = Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((info) => (host === '::' ? usable(info) : info.family === 'IPv4'));
  const loopback = all.filter((i) => i.internal).map((i) => i.address);
  const others = all.filter((i) => !i.internal).map((i) => i.address);
  return [...new Set([...loopback.filter((a) => a === '127.0.0.1' || a === '::1'), ...others])];
}

/** `http://address:port`, IPv6 in brackets. */
export function httpUrl(address: string, port: number, scheme = 'http'): string {
  return `${scheme}://${isIP(address) === 6 ? `[${address}]` : address}:${port}`;
}
