import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, createRedis, EventQueue, newId, newIdAt } from '@mailroom/core';
import { createPool, type Pool, type Queryable } from '@mailroom/db';
import { createTestDatabase } from '../../../test/support/databases';
import { DnsServer } from '../../../test/support/dns-server';
import { processReceivedEmails } from '../src/processing';

/** A logger that says nothing unless a test run asks for it. */
export const quietLogger = () => createLogger({ service: 'inbound-test', level: process.env.TEST_LOG_LEVEL ?? 'silent', pretty: false });

export async function insertProject(pool: Pool, projectId = newId('project')): Promise<string> {
  await pool.query({ text: 'INSERT INTO projects (id, name, updated_at) VALUES ($1, $2, now())', values: [projectId, 'Inbound'] });
  return projectId;
}

export interface ReceivedFixture {
  raw: Buffer | string;
  projectId: string | null;
  kind?: 'route' | 'feedback';
  routeIds?: string[];
  mailFrom?: string;
  rcptTo?: string[];
  remoteAddress?: string | null;
  helo?: string | null;
  /** How long ago it arrived, in seconds (the database's clock). */
  ageSeconds?: number;
}

/** Inserts a received_emails row as the MX does before its 250: raw bytes and envelope only. */
export async function insertReceived(db: Queryable, fixture: ReceivedFixture): Promise<string> {
  // Backdated mail gets a backdated id too: retention reads age from the id.
  const id = newIdAt('receivedEmail', Date.now() - (fixture.ageSeconds ?? 0) * 1000);
  const raw = typeof fixture.raw === 'string' ? Buffer.from(fixture.raw) : fixture.raw;
  await db.query({
    text: `INSERT INTO received_emails (id, project_id, kind, route_ids, mail_from, rcpt_to, remote_address, helo, raw, size, created_at)
           VALUES ($1, $2, $3::"ReceivedKind", $4::text[], $5, $6::text[], $7, $8, $9, $10, now() - make_interval(secs => $11))`,
    values: [
      id,
      fixture.projectId,
      fixture.kind ?? 'route',
      fixture.routeIds ?? ['rt_test'],
      fixture.mailFrom ?? 'ada@sender.test',
      fixture.rcptTo ?? ['inbox@acme.test'],
      fixture.remoteAddress === undefined ? '192.0.2.10' : fixture.remoteAddress,
      fixture.helo === undefined ? 'mx.sender.test' : fixture.helo,
      raw,
      raw.length,
      fixture.ageSeconds ?? 0,
    ],
  });
  return id;
}

export interface StoredReceived {
  processed: boolean;
  processingAttempts: number;
  processingError: string | null;
  from: unknown;
  to: unknown;
  cc: unknown;
  replyTo: unknown;
  subject: string | null;
  text: string | null;
  html: string | null;
  textReply: string | null;
  headers: { name: string; value: string }[];
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
  date: string | null;
  authentication: unknown;
  attachments: { filename: string | null; contentType: string; size: number; contentId: string | null; disposition: string | null; content: Buffer }[];
}

/** A received email as stored, read back with plain SQL. */
export async function readReceived(db: Queryable, id: string): Promise<StoredReceived> {
  const { rows } = await db.query<Record<string, unknown>>({
    text: `SELECT processed_at IS NOT NULL AS processed, processing_attempts, processing_error, from_address, "to", cc, reply_to, subject, text, html,
                  text_reply, headers, message_id, in_reply_to, "references",
                  to_char(date, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS date, authentication
             FROM received_emails WHERE id = $1`,
    values: [id],
  });
  const row = rows[0];
  if (!row) throw new Error(`no received email ${id}`);
  const attachments = await db.query<StoredReceived['attachments'][number]>({
    text: `SELECT filename, content_type AS "contentType", size, content_id AS "contentId", disposition, content
             FROM received_attachments WHERE received_email_id = $1 ORDER BY position`,
    values: [id],
  });
  return {
    processed: row.processed as boolean,
    processingAttempts: row.processing_attempts as number,
    processingError: row.processing_error as string | null,
    from: row.from_address,
    to: row.to,
    cc: row.cc,
    replyTo: row.reply_to,
    subject: row.subject as string | null,
    text: row.text as string | null,
    html: row.html as string | null,
    textReply: row.text_reply as string | null,
    headers: row.headers as StoredReceived['headers'],
    messageId: row.message_id as string | null,
    inReplyTo: row.in_reply_to as string | null,
    references: (row.references as string[] | null) ?? [],
    date: row.date as string | null,
    authentication: row.authentication,
    attachments: attachments.rows,
  };
}

/**
 * What parsing stored messages end to end needs: a database of its own with a project, a DNS
 * server whose empty zone answers NXDOMAIN at once (authentication finishes fast with "none"),
 * and an events queue of its own. `process` stores each message as the MX would and runs the
 * processing over all of them.
 */
export interface ProcessingRig {
  pool: Pool;
  projectId: string;
  /** Stores the messages, processes them, and gives their ids by name; every one must be processed. */
  process(messages: Iterable<readonly [string, Buffer]>): Promise<Map<string, string>>;
  close(): Promise<void>;
}

export async function startProcessingRig(label: string): Promise<ProcessingRig> {
  const database = await createTestDatabase(label);
  const pool = createPool(database.url, 4);
  const dns = await new DnsServer().start();
  const redis = createRedis('redis://127.0.0.1:6379', 'worker');
  const eventQueue = new EventQueue(redis, `mrtest-${randomBytes(4).toString('hex')}`);
  const projectId = await insertProject(pool);
  return {
    pool,
    projectId,
    async process(messages) {
      const ids = new Map<string, string>();
      for (const [name, raw] of messages) ids.set(name, await insertReceived(pool, { raw, projectId }));
      const summary = await processReceivedEmails({ pool, eventQueue, logger: quietLogger(), mta: 'mx.acme.test', dnsServers: [dns.address] }, [...ids.values()]);
      if (summary.failed.length > 0) throw new Error(`not processed: ${summary.failed.join(', ')}`);
      return ids;
    },
    async close() {
      await eventQueue.close();
      redis.disconnect();
      await dns.stop();
      await pool.end();
      await database.drop();
    },
  };
}

/** The `.eml` files of a corpus folder, by name without the extension. */
export function corpusMessages(folder: string): [string, Buffer][] {
  return readdirSync(folder)
    .filter((f) => f.endsWith('.eml'))
    .map((f) => [f.replace(/\.eml$/, ''), readFileSync(join(folder, f))]);
}

/** An attachment as a corpus expects it: its stored fields, and its bytes as hex or UTF-8 where given. */
export type ExpectedAttachment = Omit<StoredReceived['attachments'][number], 'content'> & { hex?: string; utf8?: string };
/** A corpus message's expected record: any stored fields, and its attachments in order. */
export type ExpectedReceived = Partial<Omit<StoredReceived, 'attachments'>> & { attachments?: ExpectedAttachment[] };

/**
 * Asserts a corpus message as stored: processed without error, every expected field, and when
 * attachments are expected, each one's fields in order and its bytes where the corpus gives them.
 */
export function expectStoredAs(stored: StoredReceived, expected: ExpectedReceived): void {
  expect(stored.processed).toBe(true);
  expect(stored.processingError).toBeNull();
  const { attachments, ...fields } = expected;
  expect(stored).toMatchObject(fields);
  if (!attachments) return;
  expect(stored.attachments.map(({ content, ...rest }) => rest)).toEqual(attachments.map(({ hex, utf8, ...rest }) => rest));
  attachments.forEach((a, i) => {
    const content = stored.attachments[i]?.content ?? Buffer.alloc(0);
    if (a.hex !== undefined) expect(content.toString('hex')).toBe(a.hex);
    if (a.utf8 !== undefined) expect(content.toString('utf8')).toBe(a.utf8);
  });
}

/**
 * The shared part of a corpus suite, called inside its describe: every message of `folder` is
 * processed in a rig of its own, each must have an expectation, and each is stored as expected
 * (expectStoredAs). Gives the suite's own tests the rig and each message's id by file name.
 */
export function corpusSuite(label: string, folder: string, expected: Record<string, ExpectedReceived>): { rig: () => ProcessingRig; id: (name: string) => string } {
  let rig: ProcessingRig;
  let ids: Map<string, string>;
  beforeAll(async () => {
    rig = await startProcessingRig(label);
    ids = await rig.process(corpusMessages(folder));
  }, 60_000);
  afterAll(() => rig.close());

  test('every corpus message has expectations', () => {
    expect([...ids.keys()].sort()).toEqual(Object.keys(expected).sort());
  });

  test.each(Object.entries(expected))('when %s is received, then it is stored parsed field by field', async (name, message) => {
    expectStoredAs(await readReceived(rig.pool, ids.get(name) as string), message);
  });
  return { rig: () => rig, id: (name) => ids.get(name) as string };
}
