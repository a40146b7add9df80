import { createPool, type Pool, recordEngagement } from '@mailroom/db';
import { signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';

/**
 * GET /emails/{id} answers the email, its recipients and its timeline as one moment of the
 * database, while writers commit a recipient's counters and its events together. The writer here
 * is the tracking service's own (recordEngagement): each open appends `email.opened` and adds
 * one to the recipient's `opens` in one transaction, so in any one answer the two must agree.
 * Read in two statements, a commit falling between them shows a timeline ahead of its recipient.
 */
describe('GET /emails/{id} while its events are being written', () => {
  let t: TestGateway;
  let pool: Pool;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestGateway({ label: 'emailsnapshot', env: { ALLOW_SIGNUP: 'true' } });
    pool = createPool(t.database.url, 2);
    api = (await signUp(t.api)).as;
  });
  afterAll(async () => {
    await pool.end();
    await t.close();
  });

  test('when opens commit while the email is read again and again, then each answer counts as many opens on its recipient as on its timeline, and its lastEvent agrees', async () => {
    const sent = await api.post('/emails', { from: 'hello@acme.example', to: 'ada@example.com', subject: 'Hi', html: '<p>Hello</p>' });
    expect(sent.status).toBe(200);
    const emailId: string = sent.body.id;
    const { rows } = await pool.query<{ id: string }>({ text: 'SELECT id FROM email_recipients WHERE email_id = $1', values: [emailId] });
    const recipientId = rows[0]?.id as string;

    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await recordEngagement(pool, [{ kind: 'open', emailId, recipientId, ipAddress: '192.0.2.7', userAgent: 'Mozilla/5.0', isBot: false, at: new Date() }]);
        written += 1;
      }
    })();

    const seen: { counted: number; onTimeline: number; lastEvent: string | null }[] = [];
    try {
      // Until enough answers fell while opens were being committed (and at least 150 reads).
      for (let reads = 0; reads < 150 || written < 100; reads++) {
        const res = await api.get(`/emails/${emailId}`);
        expect(res.status).toBe(200);
        const opens = res.body.events.filter((e: any) => e.type === 'email.opened');
        seen.push({ counted: res.body.recipients[0].opens, onTimeline: opens.length, lastEvent: res.body.lastEvent });
        expect(res.body.status).toBe('queued');
      }
    } finally {
      writing = false;
      await writer;
    }

    // lastEvent moves in the same transaction too: null before the first open, then email.opened.
    expect(seen.filter((s) => s.counted !== s.onTimeline || s.lastEvent !== (s.onTimeline > 0 ? 'email.opened' : null))).toEqual([]);
    // The reads did fall between commits: the counts they saw kept moving.
    expect(new Set(seen.map((s) => s.counted)).size).toBeGreaterThan(20);
  });
});
