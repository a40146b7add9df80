import { join } from 'node:path';
import { runPythonJson } from '../../../test/support/python-script';
import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';
import { type Difference, testAllowedDisagreements } from '../../../test/support/allowed-disagreements';
import { parseMailbox, type Mailbox } from '../src/features/emails/addresses';
import { ADDRESS_CORPUS } from './support/address-corpus';
import { ALLOWED_ADDRESS_DISAGREEMENTS } from './support/address-disagreements';

/*
 * parseMailbox (every address field of POST /emails) against judges independent of it and of
 * nodemailer: Python's email.headerregistry reads the value as an RFC 5322 address-list, and
 * email_validator (RFC 5321/5322 addr-spec, IDNA 2008 domains, SMTPUTF8 allowed) judges the one
 * addr-spec found. They accept when the value is exactly one mailbox, not in a group, with no
 * defect but a non-ASCII local part (RFC 6532 allows it; email_validator then decides), and the
 * addr-spec validates. Compared: accepted or not; the address (local part as written, domain in
 * ASCII, compared case-insensitively as DNS does); the display name. Every other disagreement is
 * an entry of ALLOWED_ADDRESS_DISAGREEMENTS, with its reason.
 */

interface JudgedMailbox {
  name: string;
  address: string;
}
interface Verdict {
  header: { error?: string; groups?: { name: string | null; mailboxes: JudgedMailbox[] }[]; defects?: string[] };
  validator: { utf8: { error?: string; local?: string; domain?: string } };
}

const SCRIPT = join(__dirname, 'support', 'judge-addresses.py');
/** The system interpreter, where Debian's python3-email-validator installs. */
const PYTHON = process.env.JUDGE_ADDRESSES_PYTHON ?? '/usr/bin/python3';
// RFC 6532 allows UTF-8 in a local part; whether we take one is a decision, not a defect.
const TOLERATED_DEFECTS = new Set(['NonASCIILocalPartDefect']);

function theirReading(verdict: Verdict): Mailbox | null {
  const { header, validator } = verdict;
  const [group, ...otherGroups] = header.groups ?? [];
  const [mailbox, ...otherMailboxes] = group?.mailboxes ?? [];
  const defects = (header.defects ?? []).filter((d) => !TOLERATED_DEFECTS.has(d));
  if (header.error || !group || !mailbox || otherGroups.length || otherMailboxes.length || group.name !== null || defects.length) return null;
  if (validator.utf8.error || validator.utf8.local === undefined || validator.utf8.domain === undefined) return null;
  return { name: mailbox.name, address: `${validator.utf8.local}@${validator.utf8.domain}` };
}

const lowerDomain = (address: string) => address.replace(/@([^@]*)$/, (_, domain: string) => `@${domain.toLowerCase()}`);

function differences(ours: Mailbox | null, theirs: Mailbox | null): Difference[] {
  if (!ours || !theirs) return ours === theirs ? [] : [{ field: 'accepted', ours: ours !== null, python: theirs !== null }];
  const found: Difference[] = [];
  if (lowerDomain(ours.address) !== lowerDomain(theirs.address)) found.push({ field: 'address', ours: ours.address, python: theirs.address });
  if (ours.name !== theirs.name) found.push({ field: 'name', ours: ours.name, python: theirs.name });
  return found;
}

describe('address fields against independent parsers', () => {
  const found = new Map<string, Difference[]>();
  beforeAll(async () => {
    const verdicts = await runPythonJson<Verdict[]>({
      python: PYTHON,
      script: SCRIPT,
      input: JSON.stringify(ADDRESS_CORPUS.map(([, input]) => input)),
      missing: { pattern: /No module named 'email_validator'/, message: `${PYTHON} lacks email_validator: apt-get install python3-email-validator (or set JUDGE_ADDRESSES_PYTHON)` },
    });
    ADDRESS_CORPUS.forEach(([name, input], i) => {
      const verdict = verdicts[i];
      if (!verdict) throw new Error(`no verdict for ${name}`);
      found.set(name, differences(parseMailbox(input), theirReading(verdict)));
    });
  });

  test('the corpus is large and its names are unique', () => {
    expect(ADDRESS_CORPUS.length).toBeGreaterThanOrEqual(150);
    expect(new Set(ADDRESS_CORPUS.map(([name]) => name)).size).toBe(ADDRESS_CORPUS.length);
  });

  testAllowedDisagreements(
    ADDRESS_CORPUS.map(([name]) => name),
    ALLOWED_ADDRESS_DISAGREEMENTS,
    found,
    'judged',
  );
});

describe('POST /emails with tricky address forms', () => {
  let t: TestGateway;
  let api: ApiClient;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'address-differential', env: { ALLOW_SIGNUP: 'true' } });
    const owner = await signUp(t.api);
    api = t.api.as({ token: (await createKey(owner.as, 'sending_access')).token });
  });
  afterAll(() => t.close());
  const send = (to: string) => api.post('/emails', { from: 'Acme <hello@acme.test>', to, subject: 'Hi', text: 'Hello' });

  test.each([
    ["!#$%&'*+/=?^_`{|}~-@example.com", "!#$%&'*+/=?^_`{|}~-@example.com"],
    ['{ana}|a/b@example.com', '{ana}|a/b@example.com'],
    ['"Lima, Ana" <ana@example.com>', 'ana@example.com'],
    ['J. R. Doe <j@example.com>', 'j@example.com'],
    ['Bob <bob@BÜCHER.example>', 'bob@xn--bcher-kva.example'],
    ['ivan@XN--E1AFMKFD.XN--P1AI', 'ivan@xn--e1afmkfd.xn--p1ai'],
    [`${'l'.repeat(64)}@example.com`, `${'l'.repeat(64)}@example.com`],
  ])('when to is %s, then 200 and the recipient is %s', async (to, address) => {
    const res = await send(to);
    expect(res.status).toBe(200);
    const email = await t.gateway.ctx.db.email.findUniqueOrThrow({ where: { id: res.body.id }, include: { recipients: true } });
    expect(email.recipients.map((r) => r.address)).toEqual([address]);
  });

  test.each([
    'ana@example-.com',
    `ana@${'a'.repeat(64)}.example`,
    `${'l'.repeat(65)}@example.com`,
    'ana@xn--a.example',
    '"john doe"@example.com',
    'jürgen@example.com',
    'undisclosed-recipients:;',
    'ana@example.com (Ana)',
    'Ana <ana@example.com',
    'ana@[192.0.2.1]',
    'Ana\tLima <ana@example.com>',
  ])('when to is %j, then 422 validation_error naming to', async (to) => {
    const res = await send(to);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ name: 'validation_error', message: expect.stringContaining('to'), statusCode: 422 });
  });
});
