import { MailroomConnectionError, MailroomError, MailroomTimeoutError } from '@mailroom/client';

/** The sentence to show for a failure: the API's own `message` (the error contract), or what went wrong on the way. */
export function errorMessage(error: unknown): string {
  if (error instanceof MailroomError) return error.message;
  if (error instanceof MailroomTimeoutError) return 'Mailroom did not answer in time. Try again.';
  if (error instanceof MailroomConnectionError) return 'Mailroom could not be reached. Check your connection and try again.';
  return error instanceof Error ? error.message : String(error);
}

/** An API failure as an alert: the contract's `message`, with the request id to quote when asking for help. */
export function ApiError({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (error === undefined || error === null) return null;
  const requestId = error instanceof MailroomError ? error.requestId : null;
  return (
    <div class="api-error" role="alert">
      <p>{errorMessage(error)}</p>
      {requestId && <p class="muted small">Request id: <code>{requestId}</code></p>}
      {onRetry && (
        <button type="button" class="secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}
