import { rejected } from '../../test/support/smtp-errors';

// Real-world-style rejection replies, written from what these servers are known to answer (not
// copied from any corpus), and the outcome a mature email platform gives each: deferred, or
// bounced hard / soft / policy, and whether the address is suppressed. An address is suppressed
// only for 5.1.x (DESIGN §4), given or read from a reply without an enhanced code that clearly
// says the recipient does not exist; never for policy, spam, reputation, relay, sender or rate
// replies. A disabled mailbox is 5.2.1 (RFC 3463: it may be enabled again): soft, not
// suppressed. Each goes through classifySmtpResult as nodemailer hands it over (a rejected RCPT
// TO), multi-line replies joined by "\n" as nodemailer joins them.

type Expected = 'deferred' | readonly ['hard' | 'soft' | 'policy', boolean];
const HARD_SUPPRESS = ['hard', true] as const;
const HARD = ['hard', false] as const;
const SOFT = ['soft', false] as const;
const POLICY = ['policy', false] as const;
const DEFERRED = 'deferred' as const;

const corpus: ReadonlyArray<readonly [source: string, reply: string, expected: Expected]> = [
  // Gmail
  [
    'Gmail, no such account (multi-line)',
    "550-5.1.1 The email account that you tried to reach does not exist. Please try\n550-5.1.1 double-checking the recipient's email address for typos or\n550-5.1.1 unnecessary spaces. For more information, go to\n550 5.1.1  https://support.google.com/mail/?p=NoSuchUser a1si1234567qkb.12 - gsmtp",
    HARD_SUPPRESS,
  ],
  [
    'Gmail, over quota',
    "552-5.2.2 The recipient's inbox is out of storage space. Please direct the\n552-5.2.2 recipient to\n552 5.2.2  https://support.google.com/mail/?p=OverQuotaTemp b2si2345678qkb.34 - gsmtp",
    SOFT,
  ],
  [
    'Gmail, over quota (temporary)',
    "452-4.2.2 The recipient's inbox is out of storage space and inbound mail\n452-4.2.2 cannot be delivered. Please try again later.\n452 4.2.2  https://support.google.com/mail/?p=OverQuotaTemp c3si3456789qkb.56 - gsmtp",
    DEFERRED,
  ],
  [
    'Gmail, receiving too fast (4.2.1)',
    '450-4.2.1 The user you are trying to contact is receiving mail too quickly.\n450-4.2.1 Please resend your message at a later time.\n450 4.2.1  https://support.google.com/mail/?p=ReceivingRate d4si4567890qkb.78 - gsmtp',
    DEFERRED,
  ],
  [
    'Gmail, receiving at a rate (5.2.1): not a disabled account',
    '550-5.2.1 The user you are trying to contact is receiving mail at a rate that\n550-5.2.1 prevents additional messages from being delivered. Please resend your\n550 5.2.1 message at a later time. e5si5678901qkb.90 - gsmtp',
    SOFT,
  ],
  [
    'Gmail, rate limited for unsolicited mail (4.7.28)',
    '421-4.7.28 [203.0.113.7      15] Our system has detected an unusual rate of\n421-4.7.28 unsolicited mail originating from your IP address. To protect our\n421-4.7.28 users from spam, mail sent from your IP address has been temporarily\n421 4.7.28 rate limited. f6si6789012qkb.12 - gsmtp',
    DEFERRED,
  ],
  [
    'Gmail, suspicious (4.7.0)',
    '421-4.7.0 [203.0.113.7      15] Our system has detected that this message is\n421-4.7.0 suspicious due to the very low reputation of the sending IP address.\n421 4.7.0 g7si7890123qkb.34 - gsmtp',
    DEFERRED,
  ],
  [
    'Gmail, unauthenticated sender (5.7.26)',
    '550-5.7.26 This mail has been blocked because the sender is unauthenticated.\n550-5.7.26 Gmail requires all senders to authenticate with either SPF or DKIM.\n550 5.7.26 h8si8901234qkb.56 - gsmtp',
    POLICY,
  ],
  [
    'Gmail, DMARC (5.7.26)',
    "550-5.7.26 Unauthenticated email from example.com is not accepted due to\n550-5.7.26 domain's DMARC policy. Please contact the administrator of\n550 5.7.26 example.com domain. i9si9012345qkb.78 - gsmtp",
    POLICY,
  ],
  [
    'Gmail, likely unsolicited (5.7.1)',
    '550-5.7.1 [203.0.113.7      12] Our system has detected that this message is\n550-5.7.1 likely unsolicited mail. To reduce the amount of spam sent to Gmail,\n550 5.7.1 this message has been blocked. j1si0123456qkb.90 - gsmtp',
    POLICY,
  ],
  [
    'Gmail, not authorized to send directly (5.7.1)',
    "550-5.7.1 [203.0.113.7] The IP you're using to send mail is not authorized to\n550-5.7.1 send email directly to our servers. Please use the SMTP relay at your\n550 5.7.1 service provider instead. k2si1234567qkb.12 - gsmtp",
    POLICY,
  ],
  [
    'Gmail, no PTR (5.7.25)',
    '550-5.7.25 [203.0.113.7] The IP address sending this message does not have a\n550-5.7.25 PTR record setup, or the corresponding forward DNS entry does not\n550 5.7.25 point to the sending IP. l3si2345678qkb.34 - gsmtp',
    POLICY,
  ],
  [
    'Gmail, disabled account (5.2.1)',
    '550-5.2.1 The email account that you tried to reach is disabled. Learn more at\n550 5.2.1  https://support.google.com/mail/?p=DisabledUser m4si3456789qkb.56 - gsmtp',
    SOFT,
  ],
  ['Gmail, too big (5.3.4)', "552-5.3.4 Your message exceeded Google's message size limits. Please visit\n552 5.3.4  https://support.google.com/mail/?p=MaxSizeError n5si4567890qkb.78 - gsmtp", SOFT],
  [
    'Gmail, content security issue (5.7.0)',
    '552-5.7.0 This message was blocked because its content presents a potential\n552-5.7.0 security issue. Please visit\n552 5.7.0  https://support.google.com/mail/?p=BlockedMessage o6si5678901qkb.90 - gsmtp',
    POLICY,
  ],
  ['Gmail, temporary (4.3.0)', '451-4.3.0 Mail server temporarily rejected message.\n451 4.3.0  p7si6789012qkb.12 - gsmtp', DEFERRED],

  // Microsoft Exchange Online / Outlook.com
  ['Exchange Online, recipient not found (5.1.10)', '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient bob@contoso.com not found by SMTP address lookup', HARD_SUPPRESS],
  // Directory-based edge blocking: the recipient is not in the tenant's directory, but the code is
  // 5.4.1, and DESIGN §4 suppresses only for 5.1.x: hard, the code taken as written.
  ['Exchange Online, DBEB (5.4.1)', '550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [AM6EUR05FT012.eop-eur05.prod.protection.outlook.com]', HARD],
  [
    'Exchange Online, DBEB naming the address (5.4.1)',
    '550 5.4.1 [bob@contoso.com]: Recipient address rejected: Access denied. For more information see https://aka.ms/EXOSmtpErrors [DB3PEPF0000885C.eurprd02.prod.outlook.com 2024-05-01T10:00:00.000Z 08DC69C1A2B3C4D5]',
    HARD,
  ],
  // 5.4.1 as written: a relay refusal is about the route, never the recipient.
  ['Exchange Online, relay access denied (5.4.1)', '550 5.4.1 Relay Access Denied ATTR35 [AM4PEPF00027A5F.eurprd04.prod.outlook.com]', HARD],
  [
    'Outlook.com, S3150 block list',
    "550 5.7.1 Unfortunately, messages from [203.0.113.7] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150). You can also refer your provider to http://mail.live.com/mail/troubleshooting.aspx#errors. [BL02EPF0001A0F9.namprd21.prod.outlook.com]",
    POLICY,
  ],
  [
    'Exchange Online, banned sending IP (5.7.606)',
    '550 5.7.606 Access denied, banned sending IP [203.0.113.7]. To request removal from this list please visit https://sender.office.com/ and follow the directions. For more information please go to http://go.microsoft.com/fwlink/?LinkID=526655 AS(1430)',
    POLICY,
  ],
  [
    'Outlook.com, throttled for IP reputation (4.7.650)',
    '451 4.7.650 The mail server [203.0.113.7] has been temporarily rate limited due to IP reputation. For e-mail delivery information, see https://postmaster.live.com (S775) [Name=Protocol Filter Agent][AGT=PFA][MxId=11BA1D0B2C3D4E5F] [DM6NAM12FT012.eop-nam12.prod.protection.outlook.com]',
    DEFERRED,
  ],
  ['Outlook.com, server busy (4.7.500)', '451 4.7.500 Server busy. Please try again later from [203.0.113.7]. (S77714) [SN1NAM02FT0123.eop-nam02.prod.protection.outlook.com]', DEFERRED],
  ['Exchange, mailbox full (5.2.2)', '554 5.2.2 mailbox full; STOREDRV.Deliver.Exception:QuotaExceededException.MapiExceptionShutoffQuotaExceeded', SOFT],
  // Debatable: Outlook.com answers this for addresses that do not exist, but also for mailboxes that
  // refuse us (blocked senders, inactive accounts); 5.5.0 says nothing of the mailbox. Taken as
  // written: a hard bounce that does not suppress.
  ['Outlook.com, mailbox unavailable (5.5.0)', '550 5.5.0 Requested action not taken: mailbox unavailable (S2017062302) [BN7NAM10FT063.eop-nam10.prod.protection.outlook.com]', HARD],
  [
    'Exchange Online, IP not accepted (5.7.708)',
    '550 5.7.708 Service unavailable. Access denied, traffic not accepted from this IP. For more information please go to http://go.microsoft.com/fwlink/?LinkId=526653 AS(7230)',
    POLICY,
  ],
  [
    'Outlook.com, Spamhaus',
    '550 5.7.1 Service unavailable, Client host [203.0.113.7] blocked using Spamhaus. To request removal from this list see https://www.spamhaus.org/query/lookup.lasso (AS3130). [BN8NAM11FT045.eop-nam11.prod.protection.outlook.com]',
    POLICY,
  ],
  ['Exchange on-premises, recipient not found', '550 5.1.1 RESOLVER.ADR.RecipNotFound; not found', HARD_SUPPRESS],
  ['Exchange on-premises, too many recipients', '452 4.5.3 Too many recipients', DEFERRED],

  // Yahoo / AOL
  ['Yahoo, no such account', "554 delivery error: dd This user doesn't have a yahoo.com account (bob@yahoo.com) [0] - mta4321.mail.bf1.yahoo.com", HARD_SUPPRESS],
  ['AOL, no such account', "554 delivery error: dd This user doesn't have a aol.com account (bob@aol.com) [0] - mta1234.mail.gq1.yahoo.com", HARD_SUPPRESS],
  ['Yahoo, policy (5.7.9)', '554 5.7.9 Message not accepted for policy reasons.  See https://postmaster.yahooinc.com/error-codes', POLICY],
  [
    'Yahoo, TSS04 deferral',
    '421 4.7.0 [TSS04] Messages from 203.0.113.7 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1; see https://postmaster.yahooinc.com/error-codes',
    DEFERRED,
  ],
  [
    'Yahoo, TSS09 permanent deferral',
    '553 5.7.2 [TSS09] All messages from 203.0.113.7 will be permanently deferred; Retrying will NOT succeed. See https://postmaster.yahooinc.com/error-codes',
    POLICY,
  ],
  [
    'Yahoo, disabled mailbox',
    '554 delivery error: dd Sorry, your message to bob@yahoo.com cannot be delivered. This mailbox is disabled (554.30). - mta4321.mail.bf1.yahoo.com',
    SOFT,
  ],
  ['Yahoo (older), mailbox not found', '552 1 Requested mail action aborted, mailbox not found', HARD_SUPPRESS],
  ['Yahoo, over quota', '554 delivery error: dd Sorry your message to bob@yahoo.com cannot be delivered. This account is over quota. - mta4321.mail.bf1.yahoo.com', SOFT],
  ['Yahoo (older), disabled or discontinued', '554 30 Sorry, your message to bob@yahoo.com cannot be delivered. This account has been disabled or discontinued [#102].', SOFT],

  // iCloud
  ['iCloud, user does not exist', '550 5.1.1 <bob@icloud.com>: user does not exist', HARD_SUPPRESS],
  ['iCloud, CS01 policy', '554 5.7.1 [CS01] Message rejected due to local policy. Please visit https://support.apple.com/en-us/HT204137', POLICY],
  ['iCloud, over quota', '552 5.2.2 <bob@icloud.com>: user is over quota', SOFT],

  // Comcast
  ['Comcast, not our customer', '550 5.1.1 <bob@comcast.net> Not our Customer', HARD_SUPPRESS],
  [
    'Comcast, DNSBL (no enhanced code)',
    '554 resimta-po-21v.sys.comcast.net resimta-po-21v.sys.comcast.net 203.0.113.7 found on one or more DNSBLs, see http://postmaster.comcast.net/smtp-error-codes.php#BL000001',
    POLICY,
  ],

  // GMX / Web.de
  ['GMX, mailbox unavailable', '550 Requested action not taken: mailbox unavailable', HARD_SUPPRESS],
  // The second line is about our sender domain's DNS, not the recipient.
  ['GMX, sender domain DNS', '550-Requested action not taken: mailbox unavailable\n550 invalid DNS MX or A/AAAA resource record', POLICY],
  ['Web.de, sender not allowed', '550-Requested action not taken: mailbox unavailable\n550 Sender address is not allowed.', POLICY],
  [
    'GMX, policy restrictions',
    '554-Transaction failed\n554-Reject due to policy restrictions.\n554 For explanation visit https://postmaster.gmx.net/en/case?c=r0401&i=ip&v=203.0.113.7&r=1AbCdE-1aBcDe',
    POLICY,
  ],
  ['Web.de, mailbox disabled', '550 5.2.1 <bob@web.de>: Mailbox disabled, not accepting messages', SOFT],

  // Mail.ru
  ['Mail.ru, invalid mailbox: user not found', '550 Message was not accepted -- invalid mailbox.  Local mailbox bob@mail.ru is unavailable: user not found', HARD_SUPPRESS],
  ['Mail.ru, invalid mailbox: account disabled', '550 Message was not accepted -- invalid mailbox.  Local mailbox bob@mail.ru is unavailable: account is disabled', HARD_SUPPRESS],
  [
    'Mail.ru, spam',
    '550 spam message rejected. Please visit http://help.mail.ru/notspam-support/id?c=AbCd or  report details to abuse@corp.mail.ru. Error code: 1A2B3C. ID: 4D5E6F.',
    POLICY,
  ],
  ['Mail.ru, rate limit', '451 Ratelimit exceeded for mailbox bob@mail.ru. Try again later.', DEFERRED],

  // Yandex
  // Yandex answers a recipient that does not exist with 5.7.1, a policy code: DESIGN §4 never
  // suppresses for policy codes, so it is read as written.
  ['Yandex, no such user (5.7.1)', '550 5.7.1 No such user!', POLICY],
  ['Yandex, spam', '554 5.7.1 [2] Message rejected under suspicion of SPAM; https://ya.cc/1IrBc 1700000000-AbCdEf0123', POLICY],
  ['Yandex, policy rejection on the target address', '550 5.7.1 Policy rejection on the target address', POLICY],
  ['Yandex, temporarily unavailable', '451 4.7.1 Sorry, the service is currently unavailable. Please come back later.', DEFERRED],

  // Zoho, Fastmail, Proton
  ['Zoho, user does not exist', '550 5.1.1 User does not exist - <bob@zohomail.com>', HARD_SUPPRESS],
  ['Zoho, mailbox size limit', '552 5.2.2 Mailbox size limit exceeded', SOFT],
  ['Zoho, relaying disallowed', '553 Relaying disallowed. Invalid Domain - example.org', POLICY],
  ['Fastmail, user does not exist', '550 5.1.1 <bob@fastmail.com>: Recipient address rejected: User does not exist', HARD_SUPPRESS],
  ['Fastmail, DMARC', '550 5.7.1 Email rejected per DMARC policy for example.com', POLICY],
  ['Fastmail, greylisting', '451 4.7.1 <bob@fastmail.com>: Recipient address rejected: Greylisting in action, please come back later', DEFERRED],
  ['Proton, address does not exist', '550 5.1.1 <bob@proton.me>: Recipient address rejected: Address does not exist', HARD_SUPPRESS],
  ['Proton, spam', '554 5.7.1 <bob@proton.me>: Recipient address rejected: Message rejected due to spam', POLICY],

  // Gateways: Proofpoint, Mimecast, Barracuda
  ['Proofpoint, user unknown', '550 5.1.1 User Unknown', HARD_SUPPRESS],
  ['Proofpoint, blocked', '554 Blocked - see https://ipcheck.proofpoint.com/?ip=203.0.113.7', POLICY],
  ['Proofpoint, recipient rejected by policy', '550 5.7.1 <bob@example.com>: Recipient rejected by policy', POLICY],
  // Debatable: says nothing of why; a hard bounce that does not suppress.
  ['Gateway, bare recipient rejected', '550 Recipient rejected', HARD],
  ['Mimecast, invalid recipient', '550 Invalid Recipient - https://community.mimecast.com/docs/DOC-1369#550 [AbCdEfGhIjKlMnOp.uk123]', HARD_SUPPRESS],
  ['Mimecast, envelope blocked', '550 Administrative prohibition - envelope blocked - https://community.mimecast.com/docs/DOC-1369#550 [AbCdEfGhIjKlMnOp.uk123]', POLICY],
  ['Mimecast, security policies', '554 Email rejected due to security policies - https://community.mimecast.com/docs/DOC-1369#554 [AbCdEfGhIjKlMnOp.uk123]', POLICY],
  ['Mimecast, temporary', '451 Internal resource temporarily unavailable - https://community.mimecast.com/docs/DOC-1369#451', DEFERRED],
  ['Barracuda, blocked recipient', '550 permanent failure for one or more recipients (bob@example.com:blocked)', POLICY],
  [
    'Barracuda, reputation',
    '554 Service unavailable; Client host [203.0.113.7] blocked using Barracuda Reputation; http://www.barracudanetworks.com/reputation/?pr=1&ip=203.0.113.7',
    POLICY,
  ],
  ['Barracuda, no such user', '550 No such user (bob@example.com)', HARD_SUPPRESS],

  // Block lists
  ['Spamhaus', '554 5.7.1 Service unavailable; Client host [203.0.113.7] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/203.0.113.7', POLICY],
  ['Spamhaus (no enhanced code)', '550 Rejected: 203.0.113.7 listed at zen.spamhaus.org', POLICY],
  ['SpamCop', '550 5.7.1 Blocked - see https://www.spamcop.net/bl.shtml?203.0.113.7', POLICY],
  [
    'Poor reputation (no enhanced code)',
    "554 Your access to this mail system has been rejected due to the sending MTA's poor reputation. If you believe that this failure is in error, please contact the intended recipient via alternate means.",
    POLICY,
  ],

  // Greylisting
  ['Postgrey', '450 4.7.1 <bob@example.com>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.com.html', DEFERRED],
  ['Greylisting, 451', '451 4.7.1 Please try again later', DEFERRED],
  ['Greylisting, no enhanced code', '451 Greylisted, please try again in 300 seconds', DEFERRED],

  // Postfix
  ['Postfix, local recipient table', '550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown in local recipient table', HARD_SUPPRESS],
  ['Postfix, virtual mailbox table', '550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown in virtual mailbox table', HARD_SUPPRESS],
  ['Postfix, virtual mailbox table (no enhanced code)', '550 <bob@example.com>: Recipient address rejected: User unknown in virtual mailbox table', HARD_SUPPRESS],
  ['Postfix, relay recipient table (no enhanced code)', '550 <bob@example.com>: Recipient address rejected: User unknown in relay recipient table', HARD_SUPPRESS],
  [
    'Postfix, undeliverable address (verified)',
    '550 5.1.1 <bob@example.com>: Recipient address rejected: undeliverable address: host mail.example.com[192.0.2.10] said: 550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown in virtual mailbox table (in reply to RCPT TO command)',
    HARD_SUPPRESS,
  ],
  ['Postfix, undeliverable address (no enhanced code)', '550 <bob@example.com>: Recipient address rejected: undeliverable address: unknown user: "bob"', HARD_SUPPRESS],
  ['Postfix, relay access denied', '554 5.7.1 <bob@example.org>: Relay access denied', POLICY],
  ['Postfix, relay access denied (no enhanced code)', '554 <bob@example.org>: Relay access denied', POLICY],
  ['Postfix, sender domain not found', '450 4.1.8 <noreply@example.com>: Sender address rejected: Domain not found', DEFERRED],
  // Postfix's check_recipient_access REJECT: the same words as Microsoft's DBEB, with 5.7.1 — policy.
  ['Postfix, recipient access denied (5.7.1)', '554 5.7.1 <bob@example.com>: Recipient address rejected: Access denied', POLICY],

  // Exim
  // Debatable: Exim's answer when no router accepts the address (for a local domain: no such user).
  ['Exim, unrouteable address', '550 Unrouteable address', HARD_SUPPRESS],
  ['Exim (cPanel), no such user here', '550 No Such User Here', HARD_SUPPRESS],
  // Sender verification failed: the quoted "No Such User Here" is about our sender, not the recipient.
  [
    'Exim, sender verify failed',
    '550-Verification failed for <noreply@example.com>\n550-Called:   192.0.2.20\n550-Sent:     RCPT TO:<noreply@example.com>\n550-Response: 550 No Such User Here\n550 Sender verify failed',
    POLICY,
  ],
  ['Exim, temporary local problem', '451 Temporary local problem - please try later', DEFERRED],

  // Sendmail
  ['Sendmail, user unknown', '550 5.1.1 <bob@example.com>... User unknown', HARD_SUPPRESS],
  ['Sendmail, user unknown (no enhanced code)', '550 <bob@example.com>... User unknown', HARD_SUPPRESS],
  ['Sendmail, relaying denied', '550 5.7.1 <bob@example.org>... Relaying denied. IP name lookup failed [203.0.113.7]', POLICY],
  ['Sendmail, size (5.2.3)', '552 5.2.3 Message size exceeds fixed maximum message size (10485760)', SOFT],

  // qmail: the enhanced code comes after the text, "(#5.1.1)"
  ['qmail, no mailbox by that name', '550 sorry, no mailbox here by that name. (#5.1.1)', HARD_SUPPRESS],
  ['qmail, rcpthosts', "553 sorry, that domain isn't in my list of allowed rcpthosts (#5.7.1)", POLICY],
  ['qmail, databytes', '552 sorry, that message size exceeds my databytes limit (#5.3.4)', SOFT],

  // Courier, MDaemon
  ['Courier, user unknown', '550 User unknown.', HARD_SUPPRESS],
  ['Courier, relaying denied', '513 Relaying denied.', POLICY],
  ['MDaemon, recipient unknown', '550 <bob@example.com>, Recipient unknown', HARD_SUPPRESS],
  ['MDaemon, message size', '552 Message size exceeds fixed maximum message size', SOFT],

  // Disabled, inactive, deactivated accounts
  ['Disabled or discontinued', '550 This account has been disabled or discontinued [#102].', SOFT],
  ['Inactive account (5.2.1)', '550 5.2.1 <bob@example.com>: This account is inactive', SOFT],
  ['Mailbox disabled (5.2.1)', '550 5.2.1 Mailbox disabled, not accepting messages', SOFT],
  ['Deactivated mailbox (no enhanced code)', '550 bob@example.com: mailbox deactivated', SOFT],
  // Our own account at a relay, not the recipient's.
  ['Our account disabled', '550 5.2.1 Your account has been disabled for sending', SOFT],

  // Size and content
  ['Size (5.3.4)', '552 5.3.4 Message size exceeds fixed limit', SOFT],
  ['Content (5.6.0)', '554 5.6.0 Invalid message content', HARD],
  ['Virus (5.7.0)', '554 5.7.0 Reject, id=12345-01 - INFECTED: Eicar-Test-Signature', POLICY],
  ['Virus (no enhanced code)', '554 Virus found in message', POLICY],
];

describe('classifySmtpResult on real-world rejection replies', () => {
  it.each(corpus)('%s: %j', (_source, reply, expected) => {
    const outcome = rejected(reply);
    if (expected === 'deferred') {
      expect(outcome).toMatchObject({ kind: 'deferred' });
    } else {
      const [bounceType, suppress] = expected;
      expect(outcome).toMatchObject({ kind: 'bounced', bounceType, suppress });
    }
  });

  it('when the corpus is counted, then it has at least 60 replies', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(60);
  });
});
