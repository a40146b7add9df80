import type { EngagementHit } from '@mailroom/db';
import { decodeHit, encodeHit } from './engagement-spill';

describe('spill entries', () => {
  test('when an open and a click are encoded, then decoding gives back the same hits, time and event id included', () => {
    const hits: EngagementHit[] = [
      { kind: 'open', emailId: 'email_1', recipientId: 'recipient_1', ipAddress: null, userAgent: null, isBot: true, at: new Date(1_700_000_000_123), eventId: 'evt_1' },
      {
        kind: 'click',
        emailId: 'email_1',
        recipientId: 'recipient_1',
        link: 'https://acme.example/na%C3%AFve?q=1#top',
        ipAddress: '2001:db8::7',
        userAgent: 'Mozilla/5.0 "quoted"\ttab',
        isBot: false,
        at: new Date(1_700_000_000_456),
        eventId: 'evt_2',
      },
    ];
    expect(hits.map((h) => decodeHit(encodeHit(h)))).toEqual(hits);
  });

  test('when an entry is not a spilled hit, then it decodes to null', () => {
    const open = JSON.parse(encodeHit({ kind: 'open', emailId: 'e', recipientId: 'r', ipAddress: null, userAgent: null, isBot: false, at: new Date(0), eventId: 'evt_1' }));
    for (const entry of ['not json', 'null', '[]', JSON.stringify({ ...open, eventId: undefined }), JSON.stringify({ ...open, kind: 'bounce' }), JSON.stringify({ ...open, at: 'yesterday' })]) {
      expect(decodeHit(entry)).toBeNull();
    }
  });
});
