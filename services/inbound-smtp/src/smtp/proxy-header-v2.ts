import type { Socket } from 'node:net';
import { addressFromBytes } from '@mailroom/core';
import { AddressFamilyType, Command, IPv4ProxyAddress, IPv6ProxyAddress, V2ProxyProtocol } from 'proxy-protocol-js';

// A v2 header's fixed part: the 12-byte signature, version and command, family and protocol,
// and the length of what follows (addresses, then TLVs).
const FIXED_BYTES = 16;
// Where the 2-byte length is, in the fixed part.
const LENGTH_OFFSET = 14;
// The signature's length and first byte; a v1 header starts with `P` (of `PROXY `).
const SIGNATURE_BYTES = 12;
const V2_FIRST_BYTE = 0x0d;
// The longest header taken, fixed part included: addresses plus the TLVs balancers add (AWS's
// VPC endpoint id, Azure's link id, TLS details) come to well under a kilobyte.
export const MAX_V2_HEADER_BYTES = 4096;

/** The client a v2 header names; null for `LOCAL` (the balancer's own health check) and for non-IP families. */
export type ProxiedClient = { address: string; port: number } | null;

export type ProxyHeaderOutcome =
  /** Not a v2 header: every byte read was put back for the v1 reader. */
  | { version: 1 }
  | { version: 2; client: ProxiedClient };

/**
 * Reads a PROXY protocol v2 header (the binary form AWS NLB, HAProxy's `send-proxy-v2`, Envoy
 * and most cloud load balancers send) from the start of `socket`, leaving the SMTP bytes after
 * it unread. A connection that starts otherwise is handed back untouched (`version: 1`), for the
 * text form's reader. A header that is not valid v2 (bad signature or version, unknown command,
 * longer than MAX_V2_HEADER_BYTES), or a socket closed before its end, is an error; the caller
 * drops the connection.
 */
export function readProxyHeaderV2(socket: Socket, done: (err: Error | null, outcome?: ProxyHeaderOutcome) => void): void {
  const chunks: Buffer[] = [];
  let length = 0;
  let finished = false;
  const finish = (err: Error | null, outcome?: ProxyHeaderOutcome, rest?: Buffer) => {
    if (finished) return;
    finished = true;
    socket.removeListener('readable', read);
    socket.removeListener('error', onError);
    socket.removeListener('close', onClosed);
    socket.removeListener('end', onClosed);
    if (rest && rest.length > 0) socket.unshift(rest);
    done(err, outcome);
  };
  const onError = (err: Error) => finish(err);
  const onClosed = () => finish(new Error('connection closed before the PROXY header'));
  const read = () => {
    for (let chunk = socket.read() as Buffer | null; chunk !== null; chunk = socket.read() as Buffer | null) {
      chunks.push(chunk);
      length += chunk.length;
      const received = chunks.length === 1 ? chunk : Buffer.concat(chunks, length);
      if (received[0] !== V2_FIRST_BYTE) return finish(null, { version: 1 }, received);
      // Refused as soon as the signature is known wrong, not after waiting for a length it does not have.
      if (length >= SIGNATURE_BYTES && !V2ProxyProtocol.isValidProtocolSignature(received)) return finish(new Error('invalid PROXY v2 signature'));
      if (length < FIXED_BYTES) continue;
      const total = FIXED_BYTES + received.readUInt16BE(LENGTH_OFFSET);
      if (total > MAX_V2_HEADER_BYTES) return finish(new Error(`PROXY v2 header of ${total} bytes, over ${MAX_V2_HEADER_BYTES}`));
      if (length < total) continue;
      let client: ProxiedClient;
      try {
        client = proxiedClient(V2ProxyProtocol.parse(received.subarray(0, total)));
      } catch (err) {
        return finish(new Error(`invalid PROXY v2 header: ${(err as { message?: string }).message ?? String(err)}`));
      }
      return finish(null, { version: 2, client }, received.subarray(total));
    }
  };
  socket.on('readable', read);
  socket.on('error', onError);
  socket.on('close', onClosed);
  socket.on('end', onClosed);
}

/**
 * The client of a parsed header. `LOCAL` is a connection the balancer made itself, and UNSPEC or
 * UNIX families name no IP client: the connection's own address stands (the protocol's rule).
 */
function proxiedClient(header: V2ProxyProtocol): ProxiedClient {
  if (header.command !== Command.PROXY) return null;
  const { proxyAddress } = header;
  if (header.addressFamilyType === AddressFamilyType.INET && proxyAddress instanceof IPv4ProxyAddress) {
    return { address: addressFromBytes(proxyAddress.sourceAddress.address), port: proxyAddress.sourcePort };
  }
  if (header.addressFamilyType === AddressFamilyType.INET6 && proxyAddress instanceof IPv6ProxyAddress) {
    return { address: addressFromBytes(proxyAddress.sourceAddress.address), port: proxyAddress.sourcePort };
  }
  return null;
}
