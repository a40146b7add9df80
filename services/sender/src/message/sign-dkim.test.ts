import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { dkimVerify } from 'mailauth';
import type { OutgoingEmail } from '../send-store';
import { MessageSkeleton } from './build-skeleton';
import { type DkimKey, dkimSignature, MessageSigner } from './sign-dkim';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const key: DkimKey = { domain: 'acme.test', selector: 's1', privateKey: createPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' })) };
const record = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;

async function verify(message: Buffer) {
  // mailauth 4.13 takes a resolver; its bundled types describe the options loosely.
  const result = await dkimVerify(message, { resolver: async () => [[record]] } as unknown as Parameters<typeof dkimVerify>[1]);
  return result.results.map((r) => ({ result: r.status.result, domain: r.signingDomain, selector: r.selector, comment: r.status.comment }));
}

const email: OutgoingEmail = {
  id: 'em_1',
  projectId: 'proj_1',
  from: 'Acme <hello@acme.test>',
  fromAddress: 'hello@acme.test',
  to: ['one@example.test'],
  cc: ['two@example.test'],
  replyTo: [],
  subject: 'Signed   with  spaces ',
  html: '<p>Héllo  there, <a href="https://example.test/a">a link</a></p>\n\n\n',
  text: 'Hello  \t there\n\n',
  headers: { 'List-Unsubscribe': '<https://acme.test/u>' },
  tags: [],
  messageId: 'em_1@acme.test',
  trackOpens: false,
  trackClicks: false,
  hasAttachments: true,
  due: [],
  suppressed: [],
};
const attachments = [{ filename: 'a.bin', contentType: 'application/octet-stream', contentId: null, content: Buffer.alloc(20_000, 7) }];

describe('DKIM signing', () => {
  test('when a whole message is signed, then an independent verifier passes it, with the headers providers expect, and fails it when one body byte changes', async () => {
    const skeleton = await MessageSkeleton.build(email, attachments, { varyHtml: false });
    const raw = (await skeleton.forRecipient({ id: 'rcpt_1', address: 'one@example.test' })) as Buffer;
    const signed = Buffer.concat([await dkimSignature(raw, key), raw]);

    expect(await verify(signed)).toMatchObject([{ result: 'pass', domain: 'acme.test', selector: 's1' }]);
    const field = signed.toString('latin1').split('\r\n\r\n')[0]?.replace(/\r\n[ \t]+/g, ' ') ?? '';
    expect(field).toMatch(/c=relaxed\/relaxed/);
    const signedNames = /\bh=([^;]+)/.exec(field)?.[1]?.toLowerCase().split(':') ?? [];
    expect(signedNames).toEqual(expect.arrayContaining(['from', 'to', 'cc', 'subject', 'date', 'message-id', 'mime-version', 'content-type', 'list-unsubscribe']));

    const bodyAt = signed.indexOf('\r\n\r\n') + 40;
    const tampered = Buffer.from(signed);
    tampered[bodyAt + 200] = tampered[bodyAt + 200] === 0x41 ? 0x42 : 0x41;
    // mailauth reports a body hash mismatch as "neutral" (RFC 6376 §3.7 leaves it to the verifier): not a pass.
    expect(await verify(tampered)).toMatchObject([{ result: expect.not.stringMatching(/^pass$/), comment: expect.stringMatching(/body hash/i) }]);
  });

  test('when a From, a Subject or a Reply-To the message lacks is added after signing, then the oversigned signature fails; relaying untouched still passes', async () => {
    const skeleton = await MessageSkeleton.build(email, attachments, { varyHtml: false });
    const raw = (await skeleton.forRecipient({ id: 'rcpt_1', address: 'one@example.test' })) as Buffer;
    const signed = Buffer.concat([await dkimSignature(raw, key), raw]);
    const names = /\bh=([^;]+)/.exec(signed.toString('latin1').replace(/\r\n[ \t]+/g, ' '))?.[1]?.replace(/\s/g, '').split(':') ?? [];
    expect(names.filter((n) => n === 'from')).toHaveLength(2);
    expect(names.filter((n) => n === 'reply-to')).toHaveLength(1);
    expect(names.filter((n) => n === 'list-id')).toHaveLength(0);

    const relayed = Buffer.concat([Buffer.from('Received: from relay.example.test by mx.example.test; Wed, 2 Dec 2026 12:00:00 +0000\r\n'), signed]);
    expect((await verify(relayed))[0]?.result).toBe('pass');
    const headerEnd = signed.indexOf('\r\n\r\n') + 2;
    for (const added of ['From: Mallory <ceo@acme.test>', 'Subject: Urgent: wire the money', 'Reply-To: mallory@evil.test']) {
      // Appended at the bottom of the header section, where a verifier takes the first instance from.
      const forged = Buffer.concat([signed.subarray(0, headerEnd), Buffer.from(`${added}\r\n`), signed.subarray(headerEnd)]);
      expect((await verify(forged))[0]?.result).not.toBe('pass');
    }
  });

  test("when recipients' messages are parts with different HTML, then each is signed over its own bytes, and identical parts are signed once", async () => {
    const skeleton = await MessageSkeleton.build(email, attachments, { varyHtml: true });
    const signer = new MessageSigner(key);
    const personalize = (html: string, r: { address: string }) => html.replace('there', r.address);
    const one = await signer.sign(await skeleton.forRecipient({ id: 'rcpt_1', address: 'one@example.test' }, personalize));
    const two = await signer.sign(await skeleton.forRecipient({ id: 'rcpt_2', address: 'two@example.test' }, personalize));
    expect(one[0]).not.toEqual(two[0]);
    for (const message of [one, two]) expect((await verify(Buffer.concat(message)))[0]?.result).toBe('pass');
    // The shared prefix and suffix are the skeleton's own Buffers, not copies.
    expect(one[1]).toBe(two[1]);
    expect(one[3]).toBe(two[3]);

    const whole = await MessageSkeleton.build(email, attachments, { varyHtml: false });
    const shared = new MessageSigner(key);
    const a = await shared.sign(await whole.forRecipient({ id: 'rcpt_1', address: 'one@example.test' }));
    const b = await shared.sign(await whole.forRecipient({ id: 'rcpt_2', address: 'two@example.test' }));
    expect(a[0]).toBe(b[0]);
    expect(a[1]).toBe(b[1]);
  });
});
