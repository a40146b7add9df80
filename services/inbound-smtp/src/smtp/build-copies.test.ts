import { buildCopies } from './build-copies';

describe('the rows a received message is stored as', () => {
  test('when recipients belong to routes of two projects, a VERP address and fbl@, then each project gets one row with only its recipients and routes in RCPT order, and each feedback address its own row', () => {
    const copies = buildCopies([
      { kind: 'route', address: 'b@two.test', routeId: 'rt_2', projectId: 'proj_2' },
      { kind: 'route', address: 'a@one.test', routeId: 'rt_1a', projectId: 'proj_1' },
      { kind: 'verp', address: 'bounces+rcpt_x-y@b.test', recipientId: 'rcpt_x', projectId: 'proj_1' },
      { kind: 'route', address: 'c@one.test', routeId: 'rt_1c', projectId: 'proj_1' },
      { kind: 'route', address: 'd@one.test', routeId: 'rt_1a', projectId: 'proj_1' },
      { kind: 'fbl', address: 'fbl@b.test' },
    ]);
    expect(copies.map(({ id, ...rest }) => rest)).toEqual([
      { projectId: 'proj_2', kind: 'route', routeIds: ['rt_2'], feedbackRecipientId: null, rcptTo: ['b@two.test'] },
      { projectId: 'proj_1', kind: 'route', routeIds: ['rt_1a', 'rt_1c'], feedbackRecipientId: null, rcptTo: ['a@one.test', 'c@one.test', 'd@one.test'] },
      { projectId: 'proj_1', kind: 'feedback', routeIds: [], feedbackRecipientId: 'rcpt_x', rcptTo: ['bounces+rcpt_x-y@b.test'] },
      { projectId: null, kind: 'feedback', routeIds: [], feedbackRecipientId: null, rcptTo: ['fbl@b.test'] },
    ]);
    expect(new Set(copies.map((c) => c.id)).size).toBe(4);
    expect(copies.every((c) => c.id.startsWith('inb_'))).toBe(true);
  });
});
