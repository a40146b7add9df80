import type { Logger } from '@mailroom/core';
import type { InboundMetrics } from './metrics';
import type { RecipientResolver } from './resolve-recipient';
import { failureReply, smtpError } from './smtp-error';
import type { Transactions } from './transactions';
import type { UnknownRecipients } from './unknown-recipients';

export interface RcptToDeps {
  resolver: RecipientResolver;
  transactions: Transactions;
  unknown: UnknownRecipients;
  metrics: InboundMetrics;
  logger: Logger;
}

/**
 * RCPT TO: accepts a recipient the resolver knows (route, VERP, fbl@), refuses any other with
 * `550 5.1.1` (`450 4.7.1` for a route whose project does not hold its domain verified now),
 * and answers `451 4.3.0` when the lookup itself failed (PostgreSQL down), so the sending MTA
 * retries rather than bounces. Past MAX_UNKNOWN_RECIPIENTS refusals since the
 * session's last accepted message, `421` closes the connection.
 */
export async function handleRcptTo(deps: RcptToDeps, address: string, sessionId: string): Promise<void> {
  let recipient: Awaited<ReturnType<RecipientResolver['resolve']>>;
  try {
    recipient = await deps.resolver.resolve(address);
  } catch (err) {
    deps.metrics.recipientsRefused.inc({ reason: 'unavailable' });
    deps.logger.warn({ err }, 'recipient lookup failed');
    throw failureReply(err);
  }
  // The client left during the lookup and onClose has forgotten its session: a count or
  // recipient recorded now would be kept for good (session ids never recur), and nobody reads
  // the reply.
  if (!deps.transactions.has(sessionId)) return;
  if (!recipient) {
    if (deps.unknown.refuse(sessionId)) {
      deps.metrics.recipientsRefused.inc({ reason: 'too_many_unknown_recipients' });
      // smtp-server closes the connection after a 421.
      throw smtpError(421, 'Too many unknown recipients; closing connection.', '4.7.0');
    }
    deps.metrics.recipientsRefused.inc({ reason: 'unknown_recipient' });
    throw smtpError(550, 'No such recipient here.');
  }
  if (recipient.kind === 'lapsed') {
    deps.metrics.recipientsRefused.inc({ reason: 'domain_not_verified' });
    throw smtpError(450, "This address's domain is not verified here at the moment; try again later.", '4.7.1');
  }
  deps.transactions.accept(sessionId, recipient);
}
