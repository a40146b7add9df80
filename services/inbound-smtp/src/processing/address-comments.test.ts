import { parseMessage } from './parse-message';

const from = async (value: string) => (await parseMessage(Buffer.from(`From: ${value}\r\n\r\nx\r\n`))).from;

describe('comments in an address header (RFC 5322 §3.2.2)', () => {
  test('when a bare address is followed by a comment, then the comment is its name (the old `address (Name)` form)', async () => {
    expect(await from('ada@example.com (Ada Lovelace)')).toEqual({ address: 'ada@example.com', name: 'Ada Lovelace' });
    expect(await from('(first) ada@example.com (Ada) (Lovelace)')).toEqual({ address: 'ada@example.com', name: 'Lovelace' });
  });

  test('when the comment comes before the bare address or inside it, then it is no name (comments are not phrases)', async () => {
    expect(await from('(comment) bob@x.example')).toEqual({ address: 'bob@x.example', name: null });
    expect(await from('bob(his account)@x.example')).toEqual({ address: 'bob@x.example', name: null });
  });
});
