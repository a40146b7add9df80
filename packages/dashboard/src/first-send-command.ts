import { API_BASE_URL } from './session.ts';

/** The command that sends a first email, for the empty state (with a key from the API keys page). */
export function firstSendCommand(): string {
  return [
    `curl -X POST ${API_BASE_URL}/emails \\`,
    `  -H "Authorization: Bearer $MAILROOM_API_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{"from": "you@your-domain.example", "to": "delivered@sandbox.mailroom.test", "subject": "Hello", "text": "My first email"}'`,
  ].join('\n');
}
