import type { Webhook } from '@mailroom/client';
import { StatusBadge } from '../../components/status-badge.tsx';

/** A webhook's state in words: enabled, or disabled and why (gone, failing, manual). */
export function WebhookState({ webhook }: { webhook: Webhook }) {
  return (
    <>
      <StatusBadge status={webhook.enabled ? 'enabled' : 'disabled'} />
      {webhook.disabledReason && <span class="muted small"> ({webhook.disabledReason})</span>}
    </>
  );
}
