import type { Resolver } from 'node:dns/promises';
import { MailroomError } from '@mailroom/core';
import { resolvePublicHost, UnsafeWebhookHostError } from '@mailroom/webhooks';

export interface UrlHostCheckOptions {
  /** The `DNS_SERVERS` resolver. */
  resolver: Pick<Resolver, 'resolve4' | 'resolve6'>;
  allowPrivateNetworks: boolean;
}

/**
 * The creation-time SSRF rule (DESIGN §5): an endpoint URL whose host is, or resolves to, a
 * loopback, private or link-local address is 422 unless ALLOW_PRIVATE_NETWORKS. A name that
 * does not resolve at all (NXDOMAIN, no A or AAAA) is 422 as well: it is most likely a typo, and
 * the endpoint could never receive anything. A DNS failure (SERVFAIL, timeout) is 422 saying
 * so, to be tried again: an unchecked host is not stored. The dispatcher checks again at every
 * connection, so a name that changes later is still refused then.
 */
export function createUrlHostCheck(options: UrlHostCheckOptions): (url: string) => Promise<void> {
  return async (url) => {
    const { hostname } = new URL(url);
    try {
      await resolvePublicHost(hostname, options);
    } catch (err) {
      if (err instanceof UnsafeWebhookHostError) throw new MailroomError('validation_error', `\`url\`: ${err.message}`);
      const code = (err as { code?: string }).code ?? 'an error';
      throw new MailroomError('validation_error', `\`url\`: the host ${hostname} could not be looked up now (DNS answered ${code}); try again.`);
    }
  };
}
