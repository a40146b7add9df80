import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyBounce, type Report, readReport } from '../src/feedback/read-report';
import { reportOutcome } from '../src/processing/feedback-outcome';

// Every report in feedback-corpus/, written from the RFCs and from what each MTA and feedback
// loop is documented to send, with what reading it must give. Each DSN recipient row is
// [status, action, event, bounce type, a fragment of the diagnostic (null: none), the address the report names].
const CORPUS = join(__dirname, 'feedback-corpus');
const VERP = 'bounces+rcpt_01jf8x2k9m3n4p5q6r7s8t9v0w-3f2a9c1b7e4d@bounce.mailroom.test';

type Row = [string | null, string, string | null, string | null, string | null, string | null];
type Expectation =
  | { file: string; kind: 'dsn'; format: string; messageId: string | null; verp: boolean; recipients: Row[] }
  | { file: string; kind: 'arf'; format: string; feedbackType: string; originalRcptTo: string | null; messageId: string | null; verp: boolean }
  | { file: string; kind: 'unknown' | 'auto-reply' | 'personal' };

const EXPECTED: Expectation[] = [
  { file: 'amazon-ses.eml', kind: 'dsn', format: 'rfc3464', messageId: '<ses-0009@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'user unknown', 'nobody@example.com'],
    ] },
  { file: 'amazon-ses-category-mailbox-full.eml', kind: 'dsn', format: 'rfc3464', messageId: '<ses-0051@acme.test>', verp: true, recipients: [
      ['5.2.2', 'failed', 'email.bounced', 'soft', 'Mailbox Full', 'full.box@example.jp'],
    ] },
  { file: 'amazon-ses-category-unknown-user.eml', kind: 'dsn', format: 'rfc3464', messageId: '<ses-0052@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'Unknown user', 'nobody@example.jp'],
    ] },
  { file: 'arf-aol-scomp-redacted.eml', kind: 'arf', format: 'arf-aol', feedbackType: 'abuse', originalRcptTo: null, messageId: '<aol-0042@acme.test>', verp: true },
  { file: 'arf-mailru.eml', kind: 'arf', format: 'arf-mailru', feedbackType: 'abuse', originalRcptTo: null, messageId: '<ru-0043@acme.test>', verp: true },
  { file: 'arf-validity-comcast.eml', kind: 'arf', format: 'arf-validity', feedbackType: 'abuse', originalRcptTo: 'jane@comcast.net', messageId: '<cc-0044@acme.test>', verp: true },
  { file: 'arf-yahoo-cfl.eml', kind: 'arf', format: 'arf-yahoo', feedbackType: 'abuse', originalRcptTo: 'someone@yahoo.com', messageId: '<arf-0041@acme.test>', verp: true },
  { file: 'arf-original-after-blank-line.eml', kind: 'arf', format: 'arf', feedbackType: 'abuse', originalRcptTo: 'reader@isp.example.net', messageId: '<arf-0048@acme.test>', verp: true },
  { file: 'arf-yahoo-mbox-from-line.eml', kind: 'arf', format: 'arf-yahoo', feedbackType: 'abuse', originalRcptTo: 'reader@yahoo.example', messageId: '<arf-0053@acme.test>', verp: true },
  { file: 'auto-reply-exchange-fr.eml', kind: 'auto-reply' },
  { file: 'auto-reply-german-subject.eml', kind: 'auto-reply' },
  { file: 'auto-reply-out-of-office.eml', kind: 'auto-reply' },
  { file: 'bounce-german-unreadable.eml', kind: 'unknown' },
  { file: 'bounce-without-code.eml', kind: 'unknown' },
  { file: 'courier.eml', kind: 'dsn', format: 'courier', messageId: '<cr-0035@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'User unknown', 'nobody@example.org'],
    ] },
  { file: 'delay-postponed-full-mailbox.eml', kind: 'dsn', format: 'generic', messageId: '<dp-0086@acme.test>', verp: true, recipients: [
      ['4.2.2', 'delayed', 'email.delivery_delayed', null, 'postponed due to a full mailbox', 'crammed@example.org'],
    ] },
  { file: 'delay-warning-without-code.eml', kind: 'dsn', format: 'generic', messageId: null, verp: false, recipients: [
      ['4.0.0', 'delayed', 'email.delivery_delayed', null, 'has not yet been delivered', 'later@example.com'],
    ] },
  { file: 'domino.eml', kind: 'dsn', format: 'domino', messageId: null, verp: false, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'not listed in Domino Directory', 'nobody@notes.example.com'],
    ] },
  { file: 'domino-japanese-iso-2022-jp.eml', kind: 'dsn', format: 'rfc3464', messageId: '<dm-0077@acme.test>', verp: false, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'Domino ディレクトリには見つかりません', 'hanako@example.co.jp'],
    ] },
  { file: 'dragonfly-host-not-found.eml', kind: 'dsn', format: 'dragonfly', messageId: '<df-0076@acme.test>', verp: true, recipients: [
      ['5.1.2', 'failed', 'email.bounced', 'hard', 'DNS lookup failure: host gone.example not found', 'someone@gone.example'],
    ] },
  { file: 'exchange-2003-text.eml', kind: 'dsn', format: 'exchange', messageId: null, verp: false, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', '#5.1.1', 'nobody@old.example.com'],
    ] },
  { file: 'exchange-2010-text.eml', kind: 'dsn', format: 'exchange', messageId: '<exch-0025@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'RESOLVER.ADR.RecipNotFound', 'nobody@corp.example.com'],
    ] },
  { file: 'exchange-ims-not-recognized.eml', kind: 'dsn', format: 'exchange', messageId: '<ims-0066@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'The recipient name is not recognized', 'absent@IMS.EXAMPLE.NET'],
    ] },
  { file: 'exchange-online-dsn.eml', kind: 'dsn', format: 'rfc3464', messageId: '<eo-0014@acme.test>', verp: true, recipients: [
      ['5.1.10', 'failed', 'email.bounced', 'hard', 'RecipientNotFound', 'nobody@contoso.com'],
    ] },
  { file: 'exim-bare-local-part.eml', kind: 'dsn', format: 'exim', messageId: '<exim-0071@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'mailbox does not exist', 'clerk@office.example.net'],
    ] },
  { file: 'exim-address-unindented.eml', kind: 'dsn', format: 'exim', messageId: '<ex-0083@acme.test>', verp: true, recipients: [
      ['5.2.2', 'failed', 'email.bounced', 'soft', 'quota exceeded', 'voll@example.de'],
    ] },
  { file: 'exim-delay-warning.eml', kind: 'dsn', format: 'exim', messageId: null, verp: false, recipients: [
      ['4.3.0', 'delayed', 'email.delivery_delayed', null, 'Temporary lookup failure', 'busy@example.org'],
    ] },
  { file: 'exim-explanation-after-blank-line.eml', kind: 'dsn', format: 'exim', messageId: '<ex-0082@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', '550 user unknown', 'verlassen@example.de'],
    ] },
  { file: 'exim-gmx-quoted-addresses.eml', kind: 'dsn', format: 'exim', messageId: '<gmx-0049@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'User unknown', 'gone@example.net'],
      ['5.2.2', 'failed', 'email.bounced', 'soft', 'Mailbox full', 'stuffed@example.net'],
    ] },
  { file: 'exim-multiline-over-quota.eml', kind: 'dsn', format: 'exim', messageId: '<exim-0047@acme.test>', verp: true, recipients: [
      ['5.2.2', 'failed', 'email.bounced', 'soft', 'out of storage space', 'full.box@example.org'],
    ] },
  { file: 'exim-retry-timeout.eml', kind: 'dsn', format: 'exim', messageId: '<exim-0020@acme.test>', verp: true, recipients: [
      ['4.4.7', 'failed', 'email.bounced', 'soft', 'retry timeout exceeded', 'slow@example.net'],
    ] },
  { file: 'exim-user-unknown.eml', kind: 'dsn', format: 'exim', messageId: '<exim-0018@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'User unknown in local recipient table', 'nobody@example.com'],
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'No such user here', 'ghost@example.com'],
    ] },
  { file: 'generic-mailer-daemon.eml', kind: 'dsn', format: 'generic', messageId: '<gen-0037@acme.test>', verp: false, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'mailbox unavailable', 'who@odd.example.com'],
    ] },
  { file: 'generic-multi-recipient.eml', kind: 'dsn', format: 'generic', messageId: '<gen-0050@acme.test>', verp: false, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'no such user', 'first@relay.example.org'],
      ['5.2.2', 'failed', 'email.bounced', 'soft', 'mailbox full', 'second@relay.example.org'],
    ] },
  { file: 'gmail-dsn-null-mx.eml', kind: 'dsn', format: 'rfc3464', messageId: '<gm-0058@acme.test>', verp: true, recipients: [
      ['5.1.10', 'failed', 'email.bounced', 'hard', 'Null MX', 'anyone@nomail.example'],
    ] },
  { file: 'gmail-dsn-policy-5.7.1.eml', kind: 'dsn', format: 'rfc3464', messageId: '<gm-0004@acme.test>', verp: true, recipients: [
      ['5.7.1', 'failed', 'email.bounced', 'policy', 'likely unsolicited mail', 'someone@gmail.com'],
    ] },
  { file: 'gmail-old-text-mailbox-full.eml', kind: 'dsn', format: 'gmail', messageId: '<gm-0030@acme.test>', verp: true, recipients: [
      ['5.2.2', 'failed', 'email.bounced', 'soft', 'Mailbox full', 'full@example.com'],
    ] },
  { file: 'gmail-old-text-technical-details.eml', kind: 'dsn', format: 'gmail', messageId: '<gl-0065@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', '550 550 5.1.1 user unknown', 'wrong.name@example.fr'],
    ] },
  { file: 'gmail-text-address-not-found.eml', kind: 'dsn', format: 'gmail', messageId: '<gm-0028@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'does not exist', 'nobody.here@gmail.com'],
    ] },
  { file: 'gmail-text-delivery-incomplete.eml', kind: 'dsn', format: 'gmail', messageId: null, verp: false, recipients: [
      [null, 'delayed', 'email.delivery_delayed', null, 'did not accept our requests to connect', 'busy@example.org'],
    ] },
  { file: 'hotmail-classic-text.eml', kind: 'dsn', format: 'hotmail', messageId: null, verp: false, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'mailbox unavailable', 'nobody@hotmail.com'],
    ] },
  { file: 'hmailserver-remote-server-replied.eml', kind: 'dsn', format: 'exchange', messageId: null, verp: false, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'User unknown', 'roland@example.com'],
    ] },
  { file: 'imail-invalid-userid.eml', kind: 'dsn', format: 'imail', messageId: '<im-0063@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'Invalid final delivery userid', 'vanished@imail.example.com'],
    ] },
  { file: 'ionos-reason-below.eml', kind: 'dsn', format: 'exim', messageId: '<ionos-0072@acme.test>', verp: true, recipients: [
      [null, 'failed', 'email.bounced', 'soft', 'Mail size limit exceeded', 'kunde@shop.example.de'],
    ] },
  { file: 'jmrp-outlook.eml', kind: 'arf', format: 'jmrp', feedbackType: 'abuse', originalRcptTo: 'someone@outlook.com', messageId: '<ms-0045@acme.test>', verp: true },
  { file: 'junk-unreadable.eml', kind: 'unknown' },
  { file: 'notes-failure-reasons.eml', kind: 'dsn', format: 'notes', messageId: '<nt-0064@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'not listed in public Name & Address Book', 'someone@notes.example.co.jp'],
    ] },
  { file: 'office365-html-policy.eml', kind: 'dsn', format: 'exchange', messageId: '<o365-0026@acme.test>', verp: true, recipients: [
      ['5.7.1', 'failed', 'email.bounced', 'policy', 'blocked using Spamhaus', 'boss@fabrikam.com'],
    ] },
  { file: 'opensmtpd.eml', kind: 'dsn', format: 'opensmtpd', messageId: '<os-0036@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'User unknown', 'nobody@example.com'],
      ['5.2.2', 'failed', 'email.bounced', 'soft', 'Mailbox full', 'full@example.com'],
    ] },
  { file: 'opensmtpd-domain-does-not-exist.eml', kind: 'dsn', format: 'opensmtpd', messageId: '<os-0067@acme.test>', verp: true, recipients: [
      ['5.1.2', 'failed', 'email.bounced', 'hard', 'Domain does not exist', 'someone@no-such-domain.example'],
    ] },
  { file: 'mdaemon-no-such-user.eml', kind: 'dsn', format: 'mdaemon', messageId: '<md-0080@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'no such user here', 'nadie@example.com.py'],
    ] },
  { file: 'opensmtpd-dsn-without-diagnostic.eml', kind: 'dsn', format: 'rfc3464', messageId: '<os-0068@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'User unknown in virtual mailbox table', 'left@example.net'],
      ['5.2.2', 'failed', 'email.bounced', 'soft', 'Mailbox full', 'crammed@example.net'],
      ['5.1.2', 'failed', 'email.bounced', 'hard', 'Domain does not exist', 'anyone@vanished.example'],
    ] },
  { file: 'outlook-com-dsn.eml', kind: 'dsn', format: 'rfc3464', messageId: '<ol-0010@acme.test>', verp: true, recipients: [
      ['5.5.0', 'failed', 'email.bounced', 'soft', 'mailbox unavailable', 'gone@hotmail.com'],
    ] },
  { file: 'personal-forward-with-eml.eml', kind: 'personal' },
  { file: 'postfix-text-delay.eml', kind: 'dsn', format: 'postfix', messageId: null, verp: false, recipients: [
      [null, 'delayed', 'email.delivery_delayed', null, 'Connection refused', 'later@example.org'],
    ] },
  { file: 'postfix-text-user-unknown.eml', kind: 'dsn', format: 'postfix', messageId: '<pfx-0021@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'User unknown in local recipient table', 'nobody@example.com'],
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'unknown user', 'bob@old.example.com'],
    ] },
  { file: 'qmail-expired.eml', kind: 'dsn', format: 'qmail', messageId: '<qm-0016@acme.test>', verp: true, recipients: [
      ['4.4.1', 'failed', 'email.bounced', 'soft', 'in the queue too long', 'slow@example.net'],
    ] },
  { file: 'qmail-multi-recipient.eml', kind: 'dsn', format: 'qmail', messageId: '<qm-0017@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'no mailbox here by that name', 'nouser@qmail.example.com'],
      ['5.2.2', 'failed', 'email.bounced', 'soft', 'mailbox full', 'stuffed@example.com'],
    ] },
  { file: 'qmail-remote-user-unknown.eml', kind: 'dsn', format: 'qmail', messageId: '<qm-0015@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'User unknown in virtual mailbox table', 'nobody@example.com'],
    ] },
  { file: 'rfc3464-bare-lf-forwarded.eml', kind: 'dsn', format: 'rfc3464', messageId: '<lf-0007@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'User unknown', 'alice.old@forward.example'],
    ] },
  { file: 'rfc3464-base64-parts.eml', kind: 'dsn', format: 'rfc3464', messageId: '<b64-0013@acme.test>', verp: true, recipients: [
      ['5.2.2', 'failed', 'email.bounced', 'soft', 'Quota exceeded', 'quota@b64.example'],
    ] },
  { file: 'rfc3464-class-status-no-such-user.eml', kind: 'dsn', format: 'rfc3464', messageId: '<cls-0054@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'No such user', 'maria@dest.example.net'],
    ] },
  { file: 'rfc3464-delayed.eml', kind: 'dsn', format: 'rfc3464', messageId: '<pf-0003@acme.test>', verp: true, recipients: [
      ['4.7.1', 'delayed', 'email.delivery_delayed', null, 'Greylisting', 'busy@example.org'],
    ] },
  { file: 'rfc3464-expired-4.4.7.eml', kind: 'dsn', format: 'rfc3464', messageId: '<pf-0002@acme.test>', verp: true, recipients: [
      ['4.4.7', 'failed', 'email.bounced', 'soft', 'Connection timed out', 'slow@example.net'],
    ] },
  { file: 'rfc3464-indented-boundary.eml', kind: 'dsn', format: 'rfc3464', messageId: '<gw-0073@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'User unknown', 'gone@gw.example.edu'],
      ['4.4.1', 'delayed', 'email.delivery_delayed', null, 'Connection timed out', 'slow@later.example.edu'],
    ] },
  { file: 'postfix-unknown-user-after-data.eml', kind: 'dsn', format: 'rfc3464', messageId: '<pf-0078@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'Unknown user', 'hanako@docomo.example.ne.jp'],
    ] },
  { file: 'rfc3464-recipients-without-blank-lines.eml', kind: 'dsn', format: 'rfc3464', messageId: '<aol-0074@acme.test>', verp: true, recipients: [
      ['5.2.2', 'failed', 'email.bounced', 'soft', null, 'stuffed@aol.example'],
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'Recipient address rejected', 'gone@aol.example'],
    ] },
  { file: 'rfc3464-mailbox-full-5.2.2.eml', kind: 'dsn', format: 'rfc3464', messageId: '<ex-0005@acme.test>', verp: true, recipients: [
      ['5.2.2', 'failed', 'email.bounced', 'soft', 'Mailbox full', 'full@example.com'],
    ] },
  { file: 'rfc3464-mbox-from-line.eml', kind: 'dsn', format: 'rfc3464', messageId: '<mb-0008@acme.test>', verp: true, recipients: [
      ['5.1.2', 'failed', 'email.bounced', 'hard', 'Host not found', 'nobody@example.org'],
    ] },
  { file: 'rfc3464-multi-recipient-mixed.eml', kind: 'dsn', format: 'rfc3464', messageId: '<sm-0006@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'User unknown', 'gone@example.com'],
      ['4.2.2', 'delayed', 'email.delivery_delayed', null, 'over quota', 'later@example.com'],
      ['2.0.0', 'relayed', null, null, 'queued as', 'ok@example.com'],
    ] },
  { file: 'rfc3464-postfix-user-unknown.eml', kind: 'dsn', format: 'rfc3464', messageId: '<pf-0001@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'User unknown in local recipient table', 'nobody@example.com'],
    ] },
  { file: 'rfc3464-sendmail-derived-5.2.0.eml', kind: 'dsn', format: 'rfc3464', messageId: '<sm-0055@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'Unknown user', 'absent@isp.example.jp'],
    ] },
  { file: 'rfc6533-global-delivery-status.eml', kind: 'dsn', format: 'rfc6533', messageId: '<g-0011@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', '用户 does not exist', '用户@example.jp'],
    ] },
  { file: 'sendmail-report-without-boundaries.eml', kind: 'dsn', format: 'sendmail', messageId: '<sm-0075@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'mail.local: unknown user: taro', 'taro@example.jp'],
    ] },
  { file: 'sendmail-unknown-user-after-data.eml', kind: 'dsn', format: 'rfc3464', messageId: '<sm-0079@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'Unknown user', 'taro@docomo.example.ne.jp'],
    ] },
  { file: 'sendmail-text-class-code.eml', kind: 'dsn', format: 'sendmail', messageId: '<sm-0056@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'User unknown', 'left@old.example.com'],
    ] },
  { file: 'sendmail-text.eml', kind: 'dsn', format: 'sendmail', messageId: '<sm-0023@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'User unknown', 'nobody@example.com'],
    ] },
  { file: 'sendmail-v5-host-unknown.eml', kind: 'dsn', format: 'sendmail', messageId: '<v5-0057@acme.test>', verp: true, recipients: [
      ['5.1.2', 'failed', 'email.bounced', 'hard', 'Host unknown', 'someone@nowhere.example.org'],
    ] },
  { file: 'sendmail-warning-delayed.eml', kind: 'dsn', format: 'sendmail', messageId: '<sm-0024@acme.test>', verp: true, recipients: [
      ['4.4.1', 'delayed', 'email.delivery_delayed', null, 'Connection timed out', 'busy@example.org'],
    ] },
  { file: 'text-complaint.eml', kind: 'arf', format: 'text-complaint', feedbackType: 'abuse', originalRcptTo: 'user@smallisp.example', messageId: '<txt-0046@acme.test>', verp: true },
  { file: 'text-delivery-status-basic-code.eml', kind: 'dsn', format: 'rfc3464', messageId: '<td-0012@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', '550 User unknown', 'who@legacy.example.net'],
    ] },
  { file: 'transcript-basic-code.eml', kind: 'dsn', format: 'generic', messageId: '<ez-0070@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', '<<< 550 <no-longer-here@mobile.example.jp>: User unknown', 'no-longer-here@mobile.example.jp'],
    ] },
  { file: 'transcript-success-before-failure.eml', kind: 'dsn', format: 'generic', messageId: '<pf-0069@acme.test>', verp: true, recipients: [
      ['5.7.1', 'failed', 'email.bounced', 'policy', '554 5.7.1 Message rejected', 'reader@example.org'],
    ] },
  { file: 'verizon-text.eml', kind: 'dsn', format: 'verizon', messageId: null, verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'no such user here', '5550100@vtext.example'],
    ] },
  { file: 'x1-text.eml', kind: 'dsn', format: 'x1', messageId: '<x1-0062@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'User unknown', 'missing@example.org'],
    ] },
  { file: 'yahoo-classic.eml', kind: 'dsn', format: 'yahoo', messageId: '<yc-0081@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', "doesn't have a yahoo.com account", 'gone.user@yahoo.com'],
      ['5.2.1', 'failed', 'email.bounced', 'soft', 'disabled or discontinued', 'closed.user@yahoo.com'],
    ] },
  { file: 'yahoo-text-remote.eml', kind: 'dsn', format: 'yahoo', messageId: '<yh-0032@acme.test>', verp: true, recipients: [
      ['5.7.1', 'failed', 'email.bounced', 'policy', 'Relay access denied', 'blocked@example.net'],
    ] },
  { file: 'yahoo-text.eml', kind: 'dsn', format: 'yahoo', messageId: '<yh-0031@acme.test>', verp: true, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', "doesn't have a yahoo.com account", 'gone.away@yahoo.com'],
    ] },
  { file: 'zoho-text.eml', kind: 'dsn', format: 'zoho', messageId: '<zo-0060@acme.test>', verp: false, recipients: [
      ['5.1.1', 'failed', 'email.bounced', 'hard', 'mailbox unavailable', 'nobody@example.org'],
    ] },
];

async function read(file: string): Promise<Report> {
  return readReport(readFileSync(join(CORPUS, file)));
}

describe('feedback corpus', () => {
  test('when the corpus is listed, then every file has an expectation and it holds at least 30 bounces and 4 ARF reports', () => {
    const files = readdirSync(CORPUS).filter((f) => f.endsWith('.eml')).sort();
    expect(EXPECTED.map((e) => e.file).sort()).toEqual(files);
    expect(EXPECTED.filter((e) => e.kind === 'dsn' || e.file.startsWith('bounce')).length).toBeGreaterThanOrEqual(30);
    expect(EXPECTED.filter((e) => e.kind === 'arf').length).toBeGreaterThanOrEqual(4);
    expect(new Set(EXPECTED.filter((e) => e.kind === 'arf').map((e) => (e.kind === 'arf' ? e.format : ''))).size).toBeGreaterThanOrEqual(4);
  });

  test('when the corpus is listed, then it varies line ends: some files use CRLF and some bare LF', () => {
    const raw = EXPECTED.map((e) => readFileSync(join(CORPUS, e.file), 'latin1'));
    expect(raw.filter((r) => r.includes('\r\n')).length).toBeGreaterThanOrEqual(5);
    expect(raw.filter((r) => !r.includes('\r')).length).toBeGreaterThanOrEqual(5);
  });

  test.each(EXPECTED.map((e) => [e.file, e] as const))('when %s is read, then it gives what its family says', async (_file, expected) => {
    const report = await read(expected.file);
    expect(report.kind).toBe(expected.kind);
    if (expected.kind === 'dsn' && report.kind === 'dsn') {
      expect(report.format).toBe(expected.format);
      expect(report.original.messageId ?? null).toBe(expected.messageId);
      expect(report.original.returnPath ?? null).toBe(expected.verp ? VERP : null);
      const actual = report.recipients.map((r) => {
        const c = classifyBounce(r.status, r.action);
        return [r.status, r.action, c.event, c.bounceType, r.diagnostic, r.finalRecipient ?? null];
      });
      expect(actual).toHaveLength(expected.recipients.length);
      expected.recipients.forEach(([status, action, event, bounceType, diagnostic, address], i) => {
        expect(actual[i]).toEqual([status, action, event, bounceType, diagnostic === null ? null : expect.stringContaining(diagnostic), address]);
      });
    } else if (expected.kind === 'arf' && report.kind === 'arf') {
      expect(report.format).toBe(expected.format);
      expect(report.feedbackType).toBe(expected.feedbackType);
      expect(report.originalRcptTo ?? null).toBe(expected.originalRcptTo);
      expect(report.original.messageId ?? null).toBe(expected.messageId);
      expect(report.original.returnPath ?? null).toBe(expected.verp ? VERP : null);
    } else if (report.kind === 'unknown' || report.kind === 'auto-reply' || report.kind === 'personal') {
      expect(typeof report.text).toBe('string');
    }
  });

  test('when a multi-recipient DSN is read, then the Original-Recipient is xtext-decoded and the relayed one has no event', async () => {
    const report = await read('rfc3464-multi-recipient-mixed.eml');
    if (report.kind !== 'dsn') throw new Error(`read as ${report.kind}`);
    expect(report.reportingMta).toBe('relay.example.com');
    expect(report.recipients[2]).toMatchObject({ originalRecipient: 'ok+news@example.com', remoteMta: 'legacy.example.com' });
  });

  test('when a report names a different recipient than the one mailed (a forward), then both addresses are reported as read', async () => {
    const report = await read('rfc3464-bare-lf-forwarded.eml');
    if (report.kind !== 'dsn') throw new Error(`read as ${report.kind}`);
    expect(report.recipients[0]).toMatchObject({ finalRecipient: 'alice.old@forward.example', originalRecipient: 'alice@example.com' });
    expect(report.original.to).toBe('alice@example.com');
  });

  test('when Amazon SES reports, then the Reporting-MTA names SES', async () => {
    const report = await read('amazon-ses.eml');
    expect(report).toMatchObject({ kind: 'dsn', reportingMta: expect.stringMatching(/\.smtp-out\..*amazonses\.com$/) });
  });

  test('when an ARF report is read, then its envelope fields are reported', async () => {
    expect(await read('arf-validity-comcast.eml')).toMatchObject({
      kind: 'arf',
      userAgent: 'ReturnPathFBL/2.0',
      originalMailFrom: VERP,
      sourceIp: '203.0.113.10',
      arrivalDate: 'Mon, 23 Nov 2026 00:58:02 -0000',
    });
  });

  test('when a report is unreadable, then its text is kept for the event', async () => {
    const report = await read('bounce-without-code.eml');
    expect(report).toEqual({ kind: 'unknown', text: expect.stringContaining('could not be delivered') });
  });

  test.each([
    ['exim-multiline-over-quota.eml', 'full.box@example.org', 552, "The recipient's inbox is out of storage space. Please direct the recipient to https://support.google.com/mail/?p=OverQuotaTemp"],
    ['qmail-remote-user-unknown.eml', 'nobody@example.com', 550, 'Remote host said: 550 5.1.1'],
    ['postfix-text-user-unknown.eml', 'nobody@example.com', 550, 'said: 550 5.1.1'],
  ])('when the text bounce %s quotes the remote reply mid-text, then the event has its basic code and no repeated line codes', async (file, address, code, text) => {
    const outcome = reportOutcome(await read(file), address);
    expect(outcome).toMatchObject({ kind: 'bounced', smtp: { code, message: expect.stringContaining(text) } });
    expect(outcome?.kind === 'bounced' && outcome.smtp.message).not.toMatch(/\b\d{3}-\d\.\d\.\d/);
  });

  test('when Amazon SES puts its category code before the quoted reply, then the reply decides: a full mailbox is not suppressed as an unknown address', async () => {
    expect(reportOutcome(await read('amazon-ses-category-mailbox-full.eml'), 'full.box@example.jp')).toMatchObject({
      kind: 'bounced',
      bounceType: 'soft',
      suppress: false,
      smtp: { code: 550, enhanced_code: '5.2.2' },
    });
    expect(reportOutcome(await read('amazon-ses-category-unknown-user.eml'), 'nobody@example.jp')).toMatchObject({ bounceType: 'hard', suppress: true });
  });

  test('when GMX lists several recipients, then each gets its own reply and the mailbox-full one is a soft bounce that does not suppress', async () => {
    const report = await read('exim-gmx-quoted-addresses.eml');
    expect(reportOutcome(report, 'stuffed@example.net')).toMatchObject({ kind: 'bounced', bounceType: 'soft', suppress: false, smtp: { enhanced_code: '5.2.2' } });
    expect(reportOutcome(report, 'gone@example.net')).toMatchObject({ kind: 'bounced', bounceType: 'hard', suppress: true });
    expect(reportOutcome(report, 'neither@example.net')).toMatchObject({ kind: 'bounced', bounceType: 'soft', suppress: false, smtp: { enhanced_code: null } });
  });

  test('when a person forwards a message as an attached .eml to the return path, then it is no report and no bounce', async () => {
    const report = await read('personal-forward-with-eml.eml');
    expect(report.kind).toBe('personal');
    expect(reportOutcome(report, 'jane@example.net')).toBeNull();
  });

  test('when an unreadable report attaches the original but says it could not be delivered, then it stays unknown (a soft bounce)', async () => {
    const raw = readFileSync(join(CORPUS, 'personal-forward-with-eml.eml'), 'latin1').replace('Hi, forwarding the original as a file', 'Your message was undeliverable');
    expect((await readReport(Buffer.from(raw, 'latin1'))).kind).toBe('unknown');
  });

  test.each([
    ['sendmail-report-without-boundaries.eml', 'taro@example.jp', '5.1.1'],
    ['domino-japanese-iso-2022-jp.eml', 'hanako@example.co.jp', '5.1.1'],
    ['dragonfly-host-not-found.eml', 'someone@gone.example', '5.1.2'],
  ])('when %s says the recipient or its domain does not exist without a specific code, then the address is suppressed', async (file, address, code) => {
    expect(reportOutcome(await read(file), address)).toMatchObject({ kind: 'bounced', bounceType: 'hard', suppress: true, smtp: { enhanced_code: code } });
  });

  test.each([
    ['postfix-unknown-user-after-data.eml', 'hanako@docomo.example.ne.jp'],
    ['sendmail-unknown-user-after-data.eml', 'taro@docomo.example.ne.jp'],
  ])('when %s quotes "550 Unknown user" with no enhanced code in reply to DATA (NTT docomo’s filter), then it bounces without suppressing', async (file, address) => {
    expect(reportOutcome(await read(file), address)).toMatchObject({ kind: 'bounced', suppress: false });
  });

  test.each(['auto-reply-exchange-fr.eml', 'auto-reply-german-subject.eml'])('when %s (a vacation reply in another language) arrives, then it is an automatic reply, no outcome', async (file) => {
    expect(reportOutcome(await read(file), 'someone@example.com')).toBeNull();
  });
});
