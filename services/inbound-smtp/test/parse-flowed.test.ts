import { join } from 'node:path';
import { corpusMessages, type ProcessingRig, readReceived, startProcessingRig } from './processing-support';

const CORPUS = join(__dirname, 'parse-corpus-flowed');

/**
 * Replies as Thunderbird and Apple Mail write them, `text/plain; format=flowed` (RFC 3676), and
 * the text and textReply stored for them: quoted lines of one depth joined under one quote mark,
 * never across depths, space-stuffing removed, the signature separator kept on its own line.
 */
const EXPECTED: Record<string, { text: string | null; textReply: string | null }> = {
  // Nested quotes, a line of only ">", space-stuffed lines (" From", "  Two"), a signature.
  '01-thunderbird-reply-below-quote': {
    text: [
      'On 23.11.26 09:00, Bob Smith wrote:',
      '> Hi Ada, could we move the review to Thursday? The room on Wednesday is taken by the board.',
      '>',
      '>> On 22.11.26 17:00, Ada Lovelace wrote:',
      '>> The review is on Wednesday at ten, in the usual room on the third floor. Please bring the figures.',
      '>',
      '> Bob',
      '',
      'Thursday works for me, and I have told the rest of the team. See you at ten.',
      'From the minutes: the figures are ready.',
      ' Two spaces before this line.',
      '',
      '-- ',
      'Ada Lovelace',
      'Analytical Engines Ltd',
    ].join('\n'),
    textReply: 'Thursday works for me, and I have told the rest of the team. See you at ten.\nFrom the minutes: the figures are ready.\n Two spaces before this line.',
  },
  // A quoted line that ends in a space is not joined with the unquoted answer below it.
  '02-thunderbird-inline-reply': {
    text: [
      'On 23.11.26 09:00, Bob Smith wrote:',
      '> Can you send the figures by Friday? I need them for the board meeting. ',
      'Yes, on Thursday evening.',
      '',
      '> And will Charles join us? ',
      'No, he is away that week.',
      '',
      '-- ',
      'Ada',
    ].join('\n'),
    textReply: 'Yes, on Thursday evening.\nNo, he is away that week.',
  },
  // DelSp=yes, quoted-printable, a soft break inside Japanese text, quoted empty lines written "> ".
  '03-apple-mail-reply-above-quote': {
    text: [
      'Thursday is fine. I will book the room for ten o’clock and send the invitation this afternoon. 了解です。木曜日の十時に伺います。',
      '',
      'Ada',
      '',
      '> On 23 Nov 2026, at 09:00, Bob Smith <bob@acme.test> wrote:',
      '>',
      '> Hi Ada, could we move the review to Thursday? The room on Wednesday is taken by the board.',
      '>',
      '> Bob',
    ].join('\n'),
    textReply: 'Thursday is fine. I will book the room for ten o’clock and send the invitation this afternoon. 了解です。木曜日の十時に伺います。\n\nAda',
  },
  // The flowed text part of a multipart/alternative.
  '04-thunderbird-html-alternative': {
    text: 'Agreed, Thursday at ten. I will bring the figures.\n\nOn 23.11.26 09:00, Bob Smith wrote:\n> Could we move the review to Thursday?',
    textReply: 'Agreed, Thursday at ten. I will bring the figures.',
  },
  // Without format=flowed, a line ending in a space is a line like any other.
  '05-not-flowed-kept': {
    text: 'Fine by me.\n\n> Could we move the review \n> to Thursday?\n',
    textReply: 'Fine by me.',
  },
};

describe('parsing format=flowed text', () => {
  let rig: ProcessingRig;
  let ids: Map<string, string>;

  beforeAll(async () => {
    rig = await startProcessingRig('parseflowed');
    ids = await rig.process(corpusMessages(CORPUS));
  }, 60_000);
  afterAll(() => rig.close());

  test('every corpus message has expectations', () => {
    expect([...ids.keys()].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  test.each(Object.entries(EXPECTED))('when %s is received, then its text and textReply are decoded as RFC 3676 says', async (name, expected) => {
    const stored = await readReceived(rig.pool, ids.get(name) as string);
    expect(stored.processingError).toBeNull();
    expect({ text: stored.text, textReply: stored.textReply }).toEqual(expected);
  });
});
