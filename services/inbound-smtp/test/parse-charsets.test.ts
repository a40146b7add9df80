import { type ProcessingRig, readReceived, startProcessingRig } from './processing-support';

/**
 * Charset labels mailers write that libmime and iconv-lite know by another name or not at all:
 * each with a text and its bytes in that charset (base64). The first six came out as U+FFFD.
 */
const LABELLED: [label: string, text: string, base64: string][] = [
  ['x-mac-cyrillic', 'Привет, Ґанна', 'j/Do4uXyLCCi4O3t4A=='],
  ['x-mac-ce', 'Dzień dobry, Łódź', 'RHppZcQgZG9icnksIPyXZJA='],
  ['x-mac-greek', 'Καλημέρα', 'uuHs6O3b8uE='],
  ['x-big5', '你好嗎', 'p0Gmbrbc'],
  ['x-windows-949', '안녕하세요, 똠방각하', 'vsiz58fPvLy/5CwgjGO55rCix88='],
  ['X-Mac-CE', 'Dzień dobry, Łódź', 'RHppZcQgZG9icnksIPyXZJA='],
  // Already read right (libmime's own aliases); kept so that they stay so.
  ['ks_c_5601-1987', '안녕하세요, 똠방각하', 'vsiz58fPvLy/5CwgjGO55rCix88='],
  ['x-mac-roman', 'Café ß', 'Q2FmjiCn'],
  ['x-sjis', 'こんにちは', 'grGC8YLJgr+CzQ=='],
  ['x-euc-jp', 'こんにちは', 'pLOk86TLpMGkzw=='],
  ['x-gbk', '你好', 'xOO6ww=='],
  ['cp-850', 'Grüße', 'R3KB4WU='],
  ['unicode-1-1-utf-7', 'Grüße ✓', 'R3IrQVB3QTN3LWUgK0p4TS0='],
];

/** A message whose sender name and subject (RFC 2047), body and attachment name (RFC 2231) are all in `label`. */
function labelledMessage(label: string, base64: string): Buffer {
  const bytes = Buffer.from(base64, 'base64');
  const percent = [...bytes].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  return Buffer.from(
    [
      `From: =?${label}?B?${base64}?= <ada@sender.test>`,
      'To: inbox@acme.test',
      `Subject: =?${label}?B?${base64}?=`,
      'Date: Mon, 23 Nov 2026 10:00:00 +0000',
      `Message-ID: <${label}@sender.test>`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b1"',
      '',
      '--b1',
      `Content-Type: text/plain; charset="${label}"`,
      'Content-Transfer-Encoding: base64',
      '',
      base64,
      '--b1',
      'Content-Type: application/octet-stream',
      `Content-Disposition: attachment; filename*=${label}''${percent}`,
      'Content-Transfer-Encoding: base64',
      '',
      'AAEC',
      '--b1--',
      '',
    ].join('\r\n'),
  );
}

describe('parsing mail in charsets known by other labels', () => {
  let rig: ProcessingRig;
  let ids: Map<string, string>;

  beforeAll(async () => {
    rig = await startProcessingRig('parsecharsets');
    ids = await rig.process(LABELLED.map(([label, , base64]) => [label, labelledMessage(label, base64)] as const));
  }, 60_000);
  afterAll(() => rig.close());

  test.each(LABELLED)('when a message is labelled %s, then its body, subject, sender name and attachment name are decoded in that charset', async (label, text) => {
    const stored = await readReceived(rig.pool, ids.get(label) as string);
    expect(stored.processingError).toBeNull();
    expect({
      text: stored.text,
      subject: stored.subject,
      from: stored.from,
      filenames: stored.attachments.map((a) => a.filename),
      subjectHeader: stored.headers.find((h) => h.name === 'Subject')?.value,
    }).toEqual({ text, subject: text, from: { address: 'ada@sender.test', name: text }, filenames: [text], subjectHeader: text });
  });
});
