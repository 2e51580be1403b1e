/**
 * Who may talk to the HTTP endpoint (docs/design.md §2.4): the Host names and Origins accepted
 * (DNS-rebinding protection) and the bearer token, compared in constant time. Pure functions; the
 * order in which src/http/handler.ts applies them is stated there.
 */

import { isLoopbackHost } from "../config.ts";

/** Names every loopback bind answers to. */
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** Wildcard binds: they listen on loopback too, but are no name a client uses. */
const WILDCARDS = ["0.0.0.0", "[::]"];

/**
 * Host names accepted without configuration: the bound address and, when it is loopback or a
 * wildcard (which includes loopback), the three loopback spellings. Each matches any port.
 */
export function defaultHosts(bound: string): string[] {
  const host = bound.toLowerCase();
  const own = WILDCARDS.includes(host) ? [] : [host];
  const loopback = isLoopbackHost(host) || WILDCARDS.includes(host) ? LOOPBACK_NAMES : [];
  return [...new Set([...own, ...loopback])];
}

/** Origins accepted without configuration: `http://NAME:PORT` for each default host name. */
export function defaultOrigins(bound: string, port: number): string[] {
  return defaultHosts(bound).map((name) => `http://${name}:${port}`);
}

/**
 * Split a Host header into a lower-case name and its port (undefined when absent). Undefined when
 * malformed, a port past 65535 included (no URL can hold it).
 */
export function splitHost(header: string): { name: string; port?: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s]+)(?::(\d{1,5}))?$/.exec(header.trim());
  if (!match) return undefined;
  const port = match[2] === undefined ? undefined : +match[2];
  if (port !== undefined && port > 65_535) return undefined;
  return { name: match[1].toLowerCase(), port };
}

/**
 * Whether a Host header names an allowed host. An entry `NAME` allows that name on any port; an
 * entry `NAME:PORT` only on that port. A missing or malformed header is refused.
 */
export function hostAllowed(header: string | null, allowed: readonly string[]): boolean {
  if (header === null) return false;
  const host = splitHost(header);
  if (!host) return false;
  return allowed.some((entry) => {
    const want = splitHost(entry);
    if (!want || want.name !== host.name) return false;
    return want.port === undefined || want.port === host.port;
  });
}

/** Whether an Origin header is absent (not a browser) or one of the allowed origins. */
export function originAllowed(header: string | null, allowed: readonly string[]): boolean {
  return header === null || allowed.includes(header.toLowerCase());
}

/** A fresh random token: 32 bytes, base64url (43 characters). */
export function generateToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
}

/** SHA-256 of a token: what is kept and compared, so comparison time never depends on it. */
export async function tokenDigest(token: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)));
}

/**
 * Whether an Authorization header carries the token. Both sides are compared as SHA-256 digests,
 * byte by byte without an early exit: the time taken reveals neither the token nor its length.
 */
export async function bearerMatches(
  authorization: string | null,
  expected: Uint8Array,
): Promise<boolean> {
  const presented = /^Bearer +(\S+) *$/i.exec(authorization ?? "")?.[1];
  if (presented === undefined) return false;
  const digest = await tokenDigest(presented);
  let difference = 0;
  for (let i = 0; i < expected.length; i++) difference |= digest[i] ^ expected[i];
  return difference === 0;
}
