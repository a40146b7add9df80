import type { Queryable } from '../pool';

/** The clicks on one link of an email, from its `email.clicked` events. */
export interface LinkClicks {
  link: string;
  /** Clicks by people (is_bot false). */
  clicks: number;
  /** Recipients who clicked it, people only. */
  uniqueClicks: number;
  /** Clicks by proxies and scanners (is_bot true). */
  botClicks: number;
  /** The first and latest click by a person; null when only bots clicked. */
  firstClickedAt: Date | null;
  lastClickedAt: Date | null;
}

/**
 * Clicks per link of one email of the project, most clicked by people first; empty when
 * nothing was clicked (or the email is not the project's: check that first).
 */
export async function readLinkClicks(db: Queryable, projectId: string, emailId: string): Promise<LinkClicks[]> {
  const { rows } = await db.query<{ link: string; clicks: string; unique_clicks: string; bot_clicks: string; first_at: Date | null; last_at: Date | null }>({
    name: 'mailroom-link-clicks',
    text: `SELECT link,
                  count(*) FILTER (WHERE NOT bot) AS clicks,
                  count(DISTINCT recipient) FILTER (WHERE NOT bot) AS unique_clicks,
                  count(*) FILTER (WHERE bot) AS bot_clicks,
                  min(created_at) FILTER (WHERE NOT bot) AS first_at,
                  max(created_at) FILTER (WHERE NOT bot) AS last_at
             FROM (SELECT data->'click'->>'link' AS link, coalesce((data->'click'->>'is_bot')::boolean, false) AS bot, recipient, created_at AT TIME ZONE 'UTC' AS created_at
                     FROM email_events
                    WHERE email_id = $1 AND project_id = $2 AND type = 'email.clicked') c
            GROUP BY link
            ORDER BY count(*) FILTER (WHERE NOT bot) DESC, link`,
    values: [emailId, projectId],
  });
  return rows.map((r) => ({
    link: r.link,
    clicks: Number(r.clicks),
    uniqueClicks: Number(r.unique_clicks),
    botClicks: Number(r.bot_clicks),
    firstClickedAt: r.first_at,
    lastClickedAt: r.last_at,
  }));
}
