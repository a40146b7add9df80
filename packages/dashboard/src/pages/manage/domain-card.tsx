import type { Domain, DomainRecord } from '@mailroom/client';
import { useState } from 'preact/hooks';
import { ActionButton } from '../../components/action-button.tsx';
import { ApiError } from '../../components/api-error.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { formatDateTime } from '../../format.ts';
import { getClient } from '../../session.ts';
import { useAction } from '../../use-api.ts';
import { ConfirmButton } from './confirm-button.tsx';
import './manage.css';

const PURPOSES: Record<DomainRecord['record'], string> = {
  verification: 'Ownership',
  dkim: 'DKIM key',
  return_path_mx: 'Return path MX',
  return_path_spf: 'Return path SPF',
  dmarc: 'DMARC (recommended)',
};

function purpose(record: DomainRecord): string {
  const base = PURPOSES[record.record];
  return record.record === 'dkim' && record.keyState && record.keyState !== 'current' ? `${base} (${record.keyState})` : base;
}

/** One sending domain: its status, the DNS records to publish (each with a copy button), verify, rotate DKIM, delete. */
export function DomainCard({ initial, onDeleted }: { initial: Domain; onDeleted: () => void }) {
  const [domain, setDomain] = useState(initial);
  const verify = useAction(() => getClient().domains.verify(domain.id));
  const rotate = useAction(() => getClient().domains.rotateDkim(domain.id));
  const titleId = `domain-${domain.id}`;
  return (
    <section class="panel" aria-labelledby={titleId}>
      <h2 id={titleId}>
        {domain.name} <StatusBadge status={domain.status} />
      </h2>
      {domain.claimedByAnotherProject && <p class="notice">Every required record is published, but another project verified this name first.</p>}
      <p class="muted small">
        Last checked {formatDateTime(domain.lastCheckedAt)}; next check {formatDateTime(domain.nextCheckAt)}.
        {domain.verifiedAt && ` Verified ${formatDateTime(domain.verifiedAt)}.`}
      </p>
      <h3 class="records-title">DNS records to publish</h3>
      <ul class="records">
        {domain.records.map((record) => (
          <li key={`${record.record}-${record.name}-${record.selector ?? ''}`} class="record">
            <p class="record-head">
              <strong>{purpose(record)}</strong> <span class="muted">{record.type}</span>
              {record.priority !== undefined && <span class="muted small"> priority {record.priority}</span>}
              {!record.required && <span class="muted small"> (optional)</span>} <StatusBadge status={record.status} />
            </p>
            <dl class="record-fields">
              <dt>Name</dt>
              <dd class="record-value">
                <code>{record.name}</code>
                <CopyButton value={record.name} label="Copy name" />
              </dd>
              <dt>Value</dt>
              <dd class="record-value">
                <code>{record.value}</code>
                <CopyButton value={record.value} label="Copy value" />
              </dd>
              {record.status === 'failed' && record.found && record.found.length > 0 && (
                <>
                  <dt>Found</dt>
                  <dd>
                    <code>{record.found.join(' ')}</code>
                  </dd>
                </>
              )}
              {record.reason && (
                <>
                  <dt>{record.status === 'verified' ? 'Note' : 'Why'}</dt>
                  <dd>{record.reason}</dd>
                </>
              )}
            </dl>
          </li>
        ))}
      </ul>
      <div class="actions">
        <ActionButton
          busy={verify.busy}
          aria-label={`Verify now: ${domain.name}`}
          onClick={async () => {
            const checked = await verify.run();
            if (checked) setDomain(checked);
          }}
        >
          {verify.busy ? 'Checking…' : 'Verify now'}
        </ActionButton>
        <ActionButton
          class="secondary"
          busy={rotate.busy}
          aria-label={`Rotate DKIM key: ${domain.name}`}
          onClick={async () => {
            const rotated = await rotate.run();
            if (rotated) setDomain(rotated);
          }}
        >
          Rotate DKIM key
        </ActionButton>
        <ConfirmButton
          small={false}
          label="Delete"
          ariaLabel={`Delete ${domain.name}`}
          title={`Delete the domain ${domain.name}?`}
          confirmLabel="Delete domain"
          action={() => getClient().domains.remove(domain.id)}
          onDone={onDeleted}
        >
          <p>Mail from this domain is no longer signed by Mailroom and, where verified domains are required, refused.</p>
        </ConfirmButton>
      </div>
      <ApiError error={verify.error ?? rotate.error} />
    </section>
  );
}
