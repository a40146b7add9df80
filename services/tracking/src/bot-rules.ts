import { BlockList, isIP } from 'node:net';
import type { ClickContext, EngagementHit } from '@mailroom/db';
import { isbot } from 'isbot';
import { Lru } from './lru';

/** Why a request or click is taken for a machine's rather than a person's; null for a person. */
export type BotReason = 'no_user_agent' | 'bot_user_agent' | 'image_proxy' | 'proxy_network' | 'click_burst' | 'click_before_readable';

/** Mail privacy proxies and prefetchers that name themselves in the User-Agent. */
const PROXY_USER_AGENTS: readonly RegExp[] = [
  /GoogleImageProxy/i, // Gmail fetches every image through it: "… (via ggpht.com GoogleImageProxy)"
  /YahooMailProxy/i, // Yahoo and AOL Mail
  /^Mozilla\/5\.0$/, // Apple Mail Privacy Protection's prefetch sends the bare product token
  // Gmail's and Outlook.com's prefetch: a frozen Chrome 42 / Edge 12 string with a second "Mozilla/5.0" after it, no browser's.
  /Chrome\/42\.0\.2311\.135 Safari\/537\.36 Edge\/12\.246 Mozilla\/5\.0$/,
];

/**
 * Machines the `isbot` list misses (checked after it, so they cost nothing for the User-Agents it
 * knows). Each names itself by a token no browser, mail app or webview sends.
 */
const TOOL_USER_AGENTS: readonly RegExp[] = [
  // Mail security gateways' link scanners and sandboxes, where they name their vendor and no
  // browser ("Mozilla/5.0 (compatible; Barracuda Link Protection)"). A browser's User-Agent with
  // such a name in it (a corporate web proxy or an endpoint agent adding its token) stays a
  // person's; scanners that pose as a browser are left to the network and timing rules.
  /^(?!.*\b(?:Chrome|Chromium|Firefox|Safari|Edg|OPR|Version)\/\d)(?=.*\b(?:Barracuda|Mimecast|Proofpoint|IronPort|Trend ?Micro|Sophos|Symantec|Broadcom|FireEye|Trellix|Forcepoint|Zscaler)\b)/i,
  /^Dart\/[\d.]+ \(dart:io\)$/, // Dart's (and Flutter's) HTTP client, by default
  /\b(?:Windows)?PowerShell\/\d/, // Invoke-WebRequest: "… PowerShell/7.4.2", "… WindowsPowerShell/5.1…"
];

/**
 * Networks whose requests are proxies or scanners, never a person's own device:
 * Apple's own networks, 17.0.0.0/8 and its IPv6 allocations from ARIN, RIPE and APNIC (Mail
 * Privacy Protection prefetches from them over either family), and the outbound mail
 * ranges Microsoft publishes for Exchange Online Protection (`spf.protection.outlook.com`),
 * from which Outlook's image proxy and Safe Links scanning fetch.
 */
const PROXY_NETWORKS: readonly [string, number, 'ipv4' | 'ipv6'][] = [
  ['17.0.0.0', 8, 'ipv4'],
  ['2620:149::', 32, 'ipv6'],
  ['2a01:b740::', 29, 'ipv6'],
  ['2403:300::', 32, 'ipv6'],
  ['40.92.0.0', 15, 'ipv4'],
  ['40.107.0.0', 16, 'ipv4'],
  ['52.100.0.0', 14, 'ipv4'],
  ['104.47.0.0', 17, 'ipv4'],
  ['2a01:111:f400::', 48, 'ipv6'],
  ['2a01:111:f403::', 48, 'ipv6'],
];

export interface BotRulesOptions {
  /** A click this many seconds after its recipient's delivery, or earlier, is a scanner's (TRACKING_MIN_CLICK_SECONDS). */
  minClickSeconds: number;
}

// Distinct User-Agents (and addresses) whose verdicts are kept.
const VERDICT_CACHE_SIZE = 10_000;

// Clicks on different links of one message this close together are a scanner following them all, in ms.
const BURST_MS = 1_000;

/**
 * Every rule that tells a person from a machine, in one place (README "Tracking"). Bot events
 * are recorded all the same, with `is_bot: true`, and left out of the `opens`/`clicks` counts.
 *
 * - By request (the hot path, no database): no User-Agent; a crawler's or tool's User-Agent
 *   (the maintained `isbot` list: curl, headless browsers, link checkers, Googlebot…, and the few
 *   tools and self-naming mail security scanners it misses); a mail
 *   privacy proxy's User-Agent (Gmail, Yahoo, Apple); or an address in a proxy network (Apple,
 *   Microsoft's mail protection).
 * - By timing (clicks, when the batch is written): a click on another link of the same
 *   recipient's message within a second (a scanner follows every link at once), or a click
 *   before the message could have been read: before its delivery was recorded or within
 *   `minClickSeconds` of it.
 */
export class BotRules {
  private readonly networks = new BlockList();
  // Verdicts of recent User-Agents and addresses: the same values recur from request to request.
  private readonly agents = new Lru<string, BotReason | null>(VERDICT_CACHE_SIZE);
  private readonly addresses = new Lru<string, boolean>(VERDICT_CACHE_SIZE);

  constructor(private readonly options: BotRulesOptions) {
    for (const [address, prefix, family] of PROXY_NETWORKS) this.networks.addSubnet(address, prefix, family);
  }

  /** The verdict a request alone gives. */
  byRequest(userAgent: string | null, ipAddress: string | null): BotReason | null {
    if (!userAgent?.trim()) return 'no_user_agent';
    const byAgent = this.byUserAgent(userAgent);
    if (byAgent !== null) return byAgent;
    if (ipAddress !== null && this.inProxyNetwork(ipAddress)) return 'proxy_network';
    return null;
  }

  /** The verdict a click's timing gives, against its recipient's delivery and other clicks. */
  byTiming(click: Pick<EngagementHit, 'at' | 'link'>, context: ClickContext): BotReason | null {
    const at = click.at.getTime();
    if (context.otherClicks.some((other) => other.link !== click.link && Math.abs(other.at.getTime() - at) < BURST_MS)) return 'click_burst';
    if (context.deliveredAt === null || at - context.deliveredAt.getTime() < this.options.minClickSeconds * 1000) return 'click_before_readable';
    return null;
  }

  /** The User-Agent's verdict: isbot's large regular expression runs once per distinct User-Agent. */
  private byUserAgent(userAgent: string): BotReason | null {
    const known = this.agents.get(userAgent);
    if (known !== undefined) return known;
    const verdict = PROXY_USER_AGENTS.some((pattern) => pattern.test(userAgent))
      ? 'image_proxy'
      : isbot(userAgent) || TOOL_USER_AGENTS.some((pattern) => pattern.test(userAgent))
        ? 'bot_user_agent'
        : null;
    this.agents.set(userAgent, verdict);
    return verdict;
  }

  private inProxyNetwork(address: string): boolean {
    const known = this.addresses.get(address);
    if (known !== undefined) return known;
    const verdict = this.checkNetworks(address);
    this.addresses.set(address, verdict);
    return verdict;
  }

  private checkNetworks(address: string): boolean {
    const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
    const family = isIP(plain);
    if (family === 0) return false;
    return this.networks.check(plain, family === 4 ? 'ipv4' : 'ipv6');
  }
}
