// Which origins may make cookie-authenticated writes, and which address a sign-in link may point at. Without
// PUBLIC_URL the service is reached by whatever address its host has (127.0.0.1, a LAN address), so a write whose
// Origin equals its own Host is accepted when that Host is an IP literal or localhost: a DNS name is refused,
// because DNS rebinding makes an attacker's name point at us, and the browser then sends that name as Host.
import { isIP } from 'node:net';

export interface OriginRules {
  publicOrigin: string;
  publicUrlSet: boolean;
  allowedOrigins: readonly string[];
}

/** A host name no DNS answer can stand behind: an IP literal (IPv6 in brackets, as URLs write it) or localhost. */
export function isAddressHostname(hostname: string): boolean {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) !== 0 || bare.toLowerCase() === 'localhost';
}

/** `scheme://host` parsed as a URL, or null when Host is not a bare host[:port]. */
function hostUrl(scheme: string, host: string): URL | null {
  if (host === '' || /[/?#@\s\\]/.test(host)) return null;
  try {
    return new URL(`${scheme}//${host}`);
  } catch {
    return null;
  }
}

/** Origin is exactly its Host's own address: same scheme-less host and port, a loopback or IP-literal name. */
function isOwnAddressOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.origin !== origin) return false;
  const own = hostUrl(parsed.protocol, host);
  return own !== null && own.host === parsed.host && isAddressHostname(parsed.hostname);
}

/**
 * Whether a Host header names this service rather than some DNS name: an IP literal or localhost, or the host of
 * PUBLIC_URL or of an ALLOWED_ORIGINS entry. A browser sends an attacker's name as Host after DNS rebinding, so
 * what is served to loopback peers on trust alone (/metrics) must refuse any other name.
 */
export function isOwnHost(rules: OriginRules, host: string): boolean {
  const url = hostUrl('http:', host);
  if (!url) return false;
  if (isAddressHostname(url.hostname)) return true;
  return [rules.publicOrigin, ...rules.allowedOrigins].some((origin) => {
    const own = URL.canParse(origin) ? new URL(origin) : null;
    return own !== null && own.hostname === url.hostname;
  });
}

/** Whether a cookie-authenticated write carrying `origin` to `host` comes from one of our own pages. */
export function originAllowed(rules: OriginRules, origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return false;
  if (origin === rules.publicOrigin || rules.allowedOrigins.includes(origin)) return true;
  return !rules.publicUrlSet && isOwnAddressOrigin(origin, host);
}

/** The 403's words: what was refused and which variable admits it. */
export function csrfMessage(rules: OriginRules, origin: string | undefined): string {
  const shown = origin === undefined ? 'no Origin header' : `Origin ${JSON.stringify(origin.slice(0, 200))}`;
  const accepted = rules.publicUrlSet ? `PUBLIC_URL's ${rules.publicOrigin}` : `${rules.publicOrigin} or this server's own IP address`;
  return (
    `Cross-origin request refused (${shown}): cookie-authenticated writes must come from ${accepted}. ` +
    'Set PUBLIC_URL to the address you open in the browser, or add that origin to ALLOWED_ORIGINS.'
  );
}

/** Where a request arrived: the Host it named and the socket's own end. */
export interface ArrivedAt {
  host: string | undefined;
  /** `http:` or `https:`. */
  scheme: string;
  localAddress: string | undefined;
  localPort: number | undefined;
}

/** One spelling per address: IPv4-mapped IPv6 as IPv4, IPv6 as URLs canonicalize it. */
function canonicalIp(address: string): string {
  if (address.toLowerCase().startsWith('::ffff:') && isIP(address.slice(7)) === 4) return address.slice(7);
  return isIP(address) === 6 ? new URL(`http://[${address}]`).hostname.slice(1, -1) : address;
}

function isLoopback(address: string): boolean {
  return address === '::1' || /^127\./.test(address);
}

/**
 * The base URL of the address a request arrived on, for links that must lead back to it (sign-in mail), when
 * no PUBLIC_URL says otherwise: only when Host names the very address and port the connection reached (or
 * localhost on a loopback connection), so a forged Host cannot send a link, and its token, anywhere else.
 */
export function ownAddressBase(rules: OriginRules, at: ArrivedAt): string | null {
  if (rules.publicUrlSet || at.host === undefined || at.localAddress === undefined || at.localPort === undefined) return null;
  const url = hostUrl(at.scheme, at.host);
  if (!url || !isAddressHostname(url.hostname)) return null;
  const port = url.port === '' ? (at.scheme === 'https:' ? 443 : 80) : Number(url.port);
  if (port !== at.localPort) return null;
  const local = canonicalIp(at.localAddress);
  const named = url.hostname.replace(/^\[|\]$/g, '');
  const same = named.toLowerCase() === 'localhost' ? isLoopback(local) : canonicalIp(named) === local;
  return same ? url.origin : null;
}
