import { deriveKey, encryptSecret, newId } from '@mailroom/core';
import { Client } from 'pg';
import { migrateDatabase } from '../../packages/db/src/migrate';

/** The maintenance database URL of the same server. */
function maintenanceUrl(databaseUrl: string): { url: string; name: string } {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  url.pathname = '/postgres';
  return { url: url.toString(), name };
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Drops the bench database (closing its connections) and creates and migrates it afresh. */
export async function recreateDatabase(databaseUrl: string): Promise<string[]> {
  const { url, name } = maintenanceUrl(databaseUrl);
  await withClient(url, (c) => c.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`));
  return migrateDatabase(databaseUrl);
}

/** Drops the bench database at the end of a run. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const { url, name } = maintenanceUrl(databaseUrl);
  await withClient(url, (c) => c.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`));
}

/** A connection to the bench database for counting rows while the services run. */
export class BenchDatabase {
  private constructor(private readonly client: Client) {}

  static async open(databaseUrl: string): Promise<BenchDatabase> {
    const client = new Client({ connectionString: databaseUrl });
    client.on('error', () => {});
    await client.connect();
    return new BenchDatabase(client);
  }

  /** Removes every email (recipients, attachments and events go with them) and idempotency record. */
  async clearEmails(): Promise<void> {
    await this.client.query('TRUNCATE emails, idempotency_keys CASCADE');
  }

  async countEmails(): Promise<number> {
    const { rows } = await this.client.query<{ n: string }>('SELECT count(*) AS n FROM emails');
    return Number(rows[0]?.n ?? 0);
  }

  async countDelivered(): Promise<number> {
    const { rows } = await this.client.query<{ n: string }>("SELECT count(*) AS n FROM emails WHERE status = 'delivered'");
    return Number(rows[0]?.n ?? 0);
  }

  /** {status: count} over all emails, for reports when delivery stalls. */
  async statusCounts(): Promise<Record<string, number>> {
    const { rows } = await this.client.query<{ status: string; n: string }>('SELECT status::text AS status, count(*) AS n FROM emails GROUP BY 1 ORDER BY 1');
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }

  /** The last SMTP responses recorded for recipients that are not delivered, for reports. */
  async sampleUndelivered(limit = 3): Promise<{ status: string; attempts: number; lastResponse: string | null }[]> {
    const { rows } = await this.client.query<{ status: string; attempts: number; last_response: string | null }>(
      "SELECT status::text AS status, attempts, last_response FROM email_recipients WHERE status <> 'delivered' ORDER BY updated_at DESC LIMIT $1",
      [limit],
    );
    return rows.map((r) => ({ status: r.status, attempts: r.attempts, lastResponse: r.last_response }));
  }

  /** A project with one route for `match` (the receive scenario's recipients). */
  async seedRoute(match: string): Promise<void> {
    await this.client.query("INSERT INTO projects (id, name, updated_at) VALUES ('proj_01JBENCH000000000000000000', 'Bench', now()) ON CONFLICT DO NOTHING");
    await this.client.query("INSERT INTO routes (id, project_id, match) VALUES ('rt_01JBENCH000000000000000001', 'proj_01JBENCH000000000000000000', $1) ON CONFLICT DO NOTHING", [match]);
  }

  async countReceived(): Promise<number> {
    const { rows } = await this.client.query<{ n: string }>('SELECT count(*) AS n FROM received_emails');
    return Number(rows[0]?.n ?? 0);
  }

  async countProcessed(): Promise<number> {
    const { rows } = await this.client.query<{ n: string }>('SELECT count(*) AS n FROM received_emails WHERE processed_at IS NOT NULL');
    return Number(rows[0]?.n ?? 0);
  }

  /** The server processes of the other connections to the bench database (the services' pools). */
  async backendPids(): Promise<number[]> {
    const { rows } = await this.client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
    );
    return rows.map((r) => r.pid);
  }

  /** An email with one recipient to track (the track scenario's tokens name them). */
  async seedTrackedEmail(emailId: string, recipientId: string): Promise<void> {
    await this.client.query("INSERT INTO projects (id, name, updated_at) VALUES ('proj_01JBENCH000000000000000000', 'Bench', now()) ON CONFLICT DO NOTHING");
    await this.client.query(
      `INSERT INTO emails (id, project_id, from_header, from_address, "to", cc, bcc, reply_to, subject, html, track_opens, track_clicks, message_id, status, updated_at)
       VALUES ($1, 'proj_01JBENCH000000000000000000', 'a@bench.test', 'a@bench.test', '{r@bench.test}', '{}', '{}', '{}', 'Tracked', '<p>x</p>', true, true, $1 || '@bench.test', 'delivered', now())`,
      [emailId],
    );
    await this.client.query("INSERT INTO email_recipients (id, email_id, address, kind, status, updated_at) VALUES ($1, $2, 'r@bench.test', 'to', 'delivered', now())", [recipientId, emailId]);
    // Delivered, as every tracked email a person opens was: the click rules look its delivery up.
    await this.client.query(
      "INSERT INTO email_events (id, project_id, email_id, recipient, type, data, created_at) VALUES ($1, 'proj_01JBENCH000000000000000000', $2, 'r@bench.test', 'email.delivered', '{}', now() - interval '1 hour')",
      [newId('event'), emailId],
    );
  }

  /** email.opened and email.clicked events of one email. */
  async countEngagement(emailId: string): Promise<{ opens: number; clicks: number }> {
    const { rows } = await this.client.query<{ type: string; n: string }>('SELECT type, count(*) AS n FROM email_events WHERE email_id = $1 GROUP BY type', [emailId]);
    const n = (type: string) => Number(rows.find((r) => r.type === type)?.n ?? 0);
    return { opens: n('email.opened'), clicks: n('email.clicked') };
  }

  async clearReceived(): Promise<void> {
    await this.client.query('TRUNCATE received_emails CASCADE');
  }

  /**
   * `count` webhook endpoints of the bench project subscribed to `email.delivered`, all posting
   * to `url` (each with its own query string), their secrets sealed as the gateway seals them.
   */
  async createWebhooks(count: number, url: string, masterSecret: string): Promise<string[]> {
    await this.client.query("INSERT INTO projects (id, name, updated_at) VALUES ('proj_01JBENCH000000000000000000', 'Bench', now()) ON CONFLICT DO NOTHING");
    const key = deriveKey(masterSecret, 'encryption');
    const ids = Array.from({ length: count }, () => newId('webhook'));
    for (const [i, id] of ids.entries()) {
      const secret = `whsec_${Buffer.from(newId('webhook')).toString('base64')}`;
      await this.client.query(
        `INSERT INTO webhooks (id, project_id, url, events, secret_ciphertext, updated_at)
         VALUES ($1, 'proj_01JBENCH000000000000000000', $2, '{email.delivered}', $3, now())`,
        [id, `${url}?endpoint=${i}`, encryptSecret(key, secret)],
      );
    }
    return ids;
  }

  /** Appends `count` `email.delivered` events to the outbox in one statement, as a producer would. */
  async appendEvents(count: number, data: object): Promise<void> {
    const ids = Array.from({ length: count }, () => newId('event'));
    await this.client.query(
      `INSERT INTO email_events (id, project_id, received_email_id, type, data)
       SELECT id, 'proj_01JBENCH000000000000000000', 'inb_bench', 'email.delivered', $2::jsonb FROM unnest($1::text[]) WITH ORDINALITY AS e(id, n) ORDER BY n`,
      [ids, JSON.stringify(data)],
    );
  }

  /** Delivery rows of every state: the fan-out's progress. */
  async countDeliveries(): Promise<number> {
    const { rows } = await this.client.query<{ n: string }>('SELECT count(*) AS n FROM webhook_deliveries');
    return Number(rows[0]?.n ?? 0);
  }

  async countSucceededDeliveries(): Promise<number> {
    const { rows } = await this.client.query<{ n: string }>("SELECT count(*) AS n FROM webhook_deliveries WHERE state = 'succeeded'");
    return Number(rows[0]?.n ?? 0);
  }

  /** Endpoints, deliveries, attempts and the events they came from. */
  async clearWebhooks(): Promise<void> {
    await this.client.query("TRUNCATE webhooks, webhook_deliveries, webhook_attempts CASCADE");
    await this.client.query("DELETE FROM email_events WHERE received_email_id = 'inb_bench'");
  }

  close(): Promise<void> {
    return this.client.end();
  }
}
