import { contentIdOf } from './msg-id';
import { parseMessage } from './parse-message';

describe('contentIdOf', () => {
  test.each([
    ['<p1@x>', 'p1@x'],
    ['<p1@x> (comment)', 'p1@x'],
    ['(Outlook comment) <part1.abc@example>', 'part1.abc@example'],
    ['((nested) \\) comment) <a@x> (after)', 'a@x'],
    ['< spaced@x >', 'spaced@x'],
    ['bare@x', 'bare@x'],
    ['bare@x (comment)', 'bare@x'],
    ['<"quoted"@x>', '"quoted"@x'],
    ['(only a comment)', null],
    ['', null],
    [undefined, null],
  ])('when the Content-ID is %j, then the id is %j', (value, expected) => {
    expect(contentIdOf(value)).toBe(expected);
  });
});

describe('the contentId of a part', () => {
  test('when a Content-ID has comments around the msg-id (RFC 2045 §7, RFC 5322 CFWS), then they are not part of the id', async () => {
    const raw =
      'Content-Type: multipart/related; boundary=b\r\n\r\n--b\r\nContent-Type: text/html\r\n\r\n<img src="cid:p1@x"><img src="cid:part1.abc@example">\r\n' +
      '--b\r\nContent-Type: image/gif\r\nContent-ID: <p1@x> (comment)\r\nContent-Transfer-Encoding: base64\r\n\r\nR0lGODlh\r\n' +
      '--b\r\nContent-Type: image/gif\r\nContent-ID: (Outlook comment) <part1.abc@example>\r\n\r\nGIF89a\r\n' +
      '--b\r\nContent-Type: image/gif\r\nContent-ID: < spaced@x >\r\n\r\nGIF89a\r\n--b--\r\n';
    const parsed = await parseMessage(Buffer.from(raw));
    expect(parsed.attachments.map((a) => a.contentId)).toEqual(['p1@x', 'part1.abc@example', 'spaced@x']);
  });
});
