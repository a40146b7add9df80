import { BotRules } from '../src/bot-rules';

/**
 * The request rules probed as an outside checker would: a corpus of User-Agents as real clients
 * send them, and addresses from proxy networks and from people's homes. Every case is asserted
 * on its own, so a failure names the User-Agent or address it is about.
 */
const rules = new BotRules({ minClickSeconds: 5 });

// Residential addresses: a UK broadband line, a US cable line, their IPv6 forms, a mapped v4.
const HOMES = ['86.12.34.56', '73.162.10.5', '2a02:c7c:1234:5600::1', '2600:1700:abcd:10::12', '::ffff:86.12.34.56'];
const HOME = HOMES[0] as string;

/** Mail privacy proxies and prefetchers: they fetch images (and sometimes links) for the reader. */
const MAIL_PROXIES = [
  'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)',
  'Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/49.0.2623.75 Safari/537.36 (via ggpht.com GoogleImageProxy)',
  'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/41.0.2272.96 Mobile Safari/537.36 (via ggpht.com GoogleImageProxy)',
  'YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html',
  'Mozilla/5.0 (Windows NT 6.1; WOW64; rv:11.0) Gecko Firefox/11.0 (YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html)',
  // Apple Mail Privacy Protection's prefetch: the bare product token and nothing else.
  'Mozilla/5.0',
  // Gmail's and Outlook.com's prefetcher: a frozen Chrome 42 / Edge 12 string with a second product token.
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/42.0.2311.135 Safari/537.36 Edge/12.246 Mozilla/5.0',
];

/** Link unfurlers and previewers: chat apps, social networks, readers. */
const PREVIEWERS = [
  'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  'Slackbot 1.0 (+https://api.slack.com/robots)',
  'Slack-ImgProxy (+https://api.slack.com/robots)',
  'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  'facebookexternalhit/1.1',
  'facebookcatalog/1.0',
  'Twitterbot/1.0',
  'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
  'WhatsApp/2.23.20.0 A',
  'WhatsApp/2.24.8.78 i',
  'WhatsApp/2.2413.51 W',
  'TelegramBot (like TwitterBot)',
  'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
  'Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5 skype-url-preview@microsoft.com',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) SkypeUriPreview Preview/0.5 skype-url-preview@microsoft.com',
  'MicrosoftPreview/2.0 +https://aka.ms/MicrosoftPreview',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36 Edg/122.0.0.0 BingPreview/1.0b',
  'Iframely/1.3.1 (+https://iframely.com/docs/about)',
  'Mozilla/5.0 (compatible; Iframely/1.3.1; +https://iframely.com/docs/about) Twitterbot/1.0',
  'Mozilla/5.0 (compatible; Embedly/0.2; +http://support.embed.ly/)',
  'Google-Safety',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/41.0.2272.118 Safari/537.36 (compatible; Google-Read-Aloud; +https://support.google.com/webmasters/answer/1061943)',
  'Google-PageRenderer Google (+https://developers.google.com/+/web/snippet/)',
  'Mozilla/5.0 (Windows NT 6.1; rv:6.0) Gecko/20110814 Firefox/6.0 Google (+https://developers.google.com/+/web/snippet/)',
  // iMessage's link preview presents itself as Facebook's and Twitter's unfurlers.
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0',
  'Mozilla/5.0 (compatible; redditbot/1.0; +http://www.reddit.com/feedback)',
  'Pinterestbot/1.0 (+http://www.pinterest.com/bot.html)',
  'Mozilla/5.0 (compatible; Yahoo Link Preview; https://help.yahoo.com/kb/mail/yahoo-link-preview-SLN23615.html)',
  'Mozilla/5.0 (compatible; Mastodon/4.2.8; +https://mastodon.social/)',
  'Mozilla/5.0 (compatible; vkShare; +http://vk.com/dev/Share)',
];

/**
 * Mail security link scanners and sandboxes, in the forms in which they name themselves (most of
 * the time they pose as a browser; the network and timing rules are there for those).
 */
const SCANNERS = [
  'Barracuda Sentinel (EE)',
  'Mozilla/5.0 (compatible; Barracuda Link Protection)',
  'Mimecast URL Protect',
  'Mozilla/5.0 (compatible; Mimecast-URL-Scanner)',
  'Proofpoint URL Defense',
  'Mozilla/5.0 (compatible; Proofpoint-URL-Defense/1.0)',
  'Cisco-IronPort-URL-Filtering',
  'Mozilla/5.0 (compatible; Cisco Secure Email URL Scanner)',
  'Trend Micro Email Security URL Scanner',
  'Mozilla/5.0 (compatible; TrendMicro-URL-Scan)',
  'Sophos Time-of-Click Protection',
  'Symantec Email Security.cloud Link Following',
  'Mozilla/5.0 (compatible; Broadcom Email Threat Isolation)',
  'FireEye ETP URL Analysis',
  'Forcepoint Email Security URL Sandbox',
  'Zscaler Cloud Sandbox',
  'Microsoft Office Existence Discovery',
  'Microsoft Office Protocol Discovery',
];

/** HTTP libraries, command-line tools and automated browsers with their default User-Agents. */
const TOOLS = [
  'curl/8.5.0',
  'curl/7.81.0',
  'Wget/1.21.4',
  'Wget/1.20.3 (linux-gnu)',
  'python-requests/2.31.0',
  'Python-urllib/3.11',
  'Python/3.11 aiohttp/3.9.3',
  'python-httpx/0.27.0',
  'Go-http-client/1.1',
  'Go-http-client/2.0',
  'okhttp/4.12.0',
  'okhttp/3.14.9',
  'axios/1.6.8',
  'axios/0.27.2',
  'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)',
  'node-fetch',
  'undici',
  'node',
  'got (https://github.com/sindresorhus/got)',
  'Java/17.0.9',
  'Java/1.8.0_392',
  'Java-http-client/17.0.9',
  'Apache-HttpClient/4.5.14 (Java/17.0.9)',
  'libwww-perl/6.72',
  'PostmanRuntime/7.37.3',
  'HTTPie/3.2.2',
  'Ruby',
  'Faraday v2.9.0',
  'GuzzleHttp/7',
  'Dart/3.3 (dart:io)',
  'Deno/1.42.1',
  'Bun/1.1.3',
  'Scrapy/2.11.1 (+https://scrapy.org)',
  'Mozilla/5.0 (Windows NT 10.0; Microsoft Windows 10.0.22631; en-US) PowerShell/7.4.2',
  'Mozilla/5.0 (Windows NT; Windows NT 10.0; en-US) WindowsPowerShell/5.1.22621.2506',
  'Dart/2.19 (dart:io)',
  // Puppeteer's and Playwright's Chromium, headless, keep the default User-Agent.
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0.6367.29 Safari/537.36',
  'Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1',
];

/** Search and AI crawlers. */
const CRAWLERS = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Googlebot-Image/1.0',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
  'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
  'DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)',
  'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)',
  'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
  'Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.0; +https://openai.com/gptbot)',
  'Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)',
];

/** People: current desktop and mobile browsers. */
const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8 Pro) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.6422.165 Mobile Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0',
  'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36 EdgA/126.0.0.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 EdgiOS/126.2592.56 Mobile/15E148 Safari/605.1.15',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:127.0) Gecko/20100101 Firefox/127.0',
  'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
  'Mozilla/5.0 (X11; Linux x86_64; rv:115.0) Gecko/20100101 Firefox/115.0',
  'Mozilla/5.0 (Android 14; Mobile; rv:127.0) Gecko/127.0 Firefox/127.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/127.0 Mobile/15E148 Safari/605.1.15',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPad; CPU OS 16_7_8 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 15_8_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/15.6.6 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36 OPR/111.0.0.0',
  'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36 OPR/82.0.0.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Vivaldi/6.8.3381.44',
  'Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 YaBrowser/24.4.0.0 Safari/537.36',
  'Mozilla/5.0 (Linux; Android 13; SM-A536B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.6261.128 YaBrowser/24.4.1.66.00 SA/3 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; U; Android 10; en-US; RMX2020 Build/QP1A.190711.020) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/78.0.3904.108 UCBrowser/13.4.0.1306 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; U; Android 12; en-us; M2101K6G Build/SKQ1.210908.001) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/112.0.5615.136 Mobile Safari/537.36 XiaoMi/MiuiBrowser/14.9.1-gn',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 DuckDuckGo/7 Safari/605.1.15',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; Trident/7.0; rv:11.0) like Gecko',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Whale/3.26.244.21 Safari/537.36',
  'Mozilla/5.0 (Linux; Android 12; NOH-NX9 Build/HUAWEINOH-NX9; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/99.0.4844.88 HuaweiBrowser/14.0.2.311 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 9; KFTRWI) AppleWebKit/537.36 (KHTML, like Gecko) Silk/124.2.1 like Chrome/124.0.6367.179 Safari/537.36',
  // Browsers of consumer security vendors are people's browsers: the scanner vendors' names must not catch them.
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Avast/126.0.0.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 AVG/126.0.0.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Norton/126.0.0.0',
];

/** People: mail apps, their in-app browsers, and webviews. */
/**
 * Browsers behind a corporate web proxy or with an endpoint security agent that adds its vendor's
 * token: still a person's browser, so the vendor-name rule for scanners must not catch them.
 */
const BROWSERS_WITH_VENDOR_TOKENS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Zscaler/4.2',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0 (Symantec WSS)',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15 Sophos',
];

const MAIL_APPS_AND_WEBVIEWS = [
  // Gmail and Google apps on Android open links in a webview (wv) or a Custom Tab (Chrome's own UA).
  'Mozilla/5.0 (Linux; Android 14; Pixel 7 Build/UQ1A.240205.004; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/122.0.6261.119 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP1A.240405.002; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.6367.82 Mobile Safari/537.36 GSA/15.21.34.29.arm64',
  // Gmail and the Google app on iOS.
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) GSA/320.0.647801439 Mobile/15E148 Safari/604.1',
  // iOS WKWebView without a Safari token: Apple Mail, Outlook, Spark, Gmail's in-app views on iOS.
  // Apple Mail's own User-Agent is also what some prefetchers send; it is a person by its UA
  // (only its address can say otherwise, see below).
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  // Apple Mail on macOS (WebKit without a Safari token); same caveat.
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)',
  // Outlook for Android's in-app browser (a webview) and Outlook for iOS (WKWebView).
  'Mozilla/5.0 (Linux; Android 13; SM-G991B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/123.0.6312.118 Mobile Safari/537.36',
  // Yahoo Mail app.
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 YahooMobile/1.0 (mail; 7.37.0)',
  'Mozilla/5.0 (Linux; Android 13; SM-A536B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.6367.113 Mobile Safari/537.36 YahooMobile/1.0 (mail; 7.47.1)',
  // Spark.
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Spark/3.15.1',
  // Thunderbird.
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:115.0) Gecko/20100101 Thunderbird/115.12.2',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:128.0) Gecko/20100101 Thunderbird/128.0',
  'Mozilla/5.0 (X11; Linux x86_64; rv:115.0) Gecko/20100101 Thunderbird/115.12.2',
  // Outlook for Windows (classic), which fetches images itself, and older Office.
  'Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17328; Pro)',
  'Microsoft Office/16.0 (Microsoft Outlook 16.0.17726; Pro)',
  'Microsoft Office/15.0 (Windows NT 6.1; Microsoft Outlook 15.0.5589; Pro)',
  'Mozilla/4.0 (compatible; ms-office; MSOffice 16)',
  'Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 10.0; WOW64; Trident/7.0; .NET4.0C; .NET4.0E; Microsoft Outlook 16.0.17328; ms-office; MSOffice 16)',
  // The new Outlook for Windows (WebView2) and Windows Mail.
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0 OneOutlook/1.2024.612.100',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; WebView/3.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0.3538.102 Safari/537.36 Edge/18.19045',
  // In-app browsers of apps a link may be opened from.
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/468.0.0.46.108;FBBV/620384785;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.5;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5]',
  'Mozilla/5.0 (Linux; Android 14; SM-S911B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/125.0.6422.165 Mobile Safari/537.36 Instagram 334.0.0.42.95 Android (34/14; 480dpi; 1080x2340; samsung; SM-S911B; dm1q; qcom; en_GB; 609514987)',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]/9.29.8256',
  // Slack's and Teams' desktop apps (Electron), where a person clicks a link someone pasted.
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Slack/4.38.125 Chrome/124.0.6367.243 Electron/30.1.0 Safari/537.36 Sonic Slack_SSB/4.38.125',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0 Teams/24124.2315.2911.3357',
];

/** Addresses of proxy networks: Apple's 17.0.0.0/8 and Exchange Online Protection's published ranges. */
const PROXY_ADDRESSES = [
  '17.58.1.20',
  '17.0.0.1',
  '17.255.255.254',
  '::ffff:17.1.2.3',
  '::FFFF:17.1.2.3',
  '::ffff:1101:203', // 17.1.2.3, written in hex
  '40.92.18.41',
  '40.93.0.9',
  '40.107.22.5',
  '::ffff:40.107.22.5',
  '52.100.145.230',
  '52.103.33.1',
  '104.47.58.33',
  '2a01:111:f400:fe1e::1',
  '2a01:111:f403:c80a::2',
  '2A01:111:F400::5',
];

/** Ordinary addresses: homes, mobile carriers, and neighbours of the proxy networks. */
const OTHER_ADDRESSES = [
  ...HOMES,
  '192.0.2.44',
  '100.64.12.9', // carrier-grade NAT
  '16.255.255.255',
  '18.0.0.1',
  '40.94.0.1',
  '40.106.255.254',
  '52.104.0.1',
  '104.47.128.1',
  '2a01:111:f401::1',
  '2001:db8::7',
  '::ffff:198.51.100.7',
];

const SOME_BROWSER = BROWSERS[0] as string;

describe('bot rules probed with user agents as real clients send them', () => {
  test.each(MAIL_PROXIES)('a mail privacy proxy is a bot: %s', (ua) => {
    expect(rules.byRequest(ua, HOME)).toBe('image_proxy');
  });

  test.each(PREVIEWERS)('a link previewer is a bot: %s', (ua) => {
    expect(rules.byRequest(ua, HOME)).not.toBeNull();
  });

  test.each(SCANNERS)('a mail security scanner that names itself is a bot: %s', (ua) => {
    expect(rules.byRequest(ua, HOME)).not.toBeNull();
  });

  test.each(TOOLS)('an HTTP library, tool or automated browser is a bot: %s', (ua) => {
    expect(rules.byRequest(ua, HOME)).not.toBeNull();
  });

  test.each(CRAWLERS)('a crawler is a bot: %s', (ua) => {
    expect(rules.byRequest(ua, HOME)).not.toBeNull();
  });

  test.each(['', ' ', '\t', '   \t '])('an empty or blank User-Agent is a bot: %j', (ua) => {
    expect(rules.byRequest(ua, HOME)).toBe('no_user_agent');
  });

  test('a missing User-Agent is a bot', () => {
    expect(rules.byRequest(null, HOME)).toBe('no_user_agent');
    expect(rules.byRequest(null, null)).toBe('no_user_agent');
  });

  test.each(BROWSERS)('a browser at home is a person: %s', (ua) => {
    for (const address of HOMES) expect([address, rules.byRequest(ua, address)]).toEqual([address, null]);
  });

  test.each(BROWSERS_WITH_VENDOR_TOKENS)('a browser carrying a security vendor\'s token is a person: %s', (ua) => {
    for (const address of HOMES) expect([address, rules.byRequest(ua, address)]).toEqual([address, null]);
  });

  test.each(MAIL_APPS_AND_WEBVIEWS)('a mail app or webview at home is a person: %s', (ua) => {
    for (const address of HOMES) expect([address, rules.byRequest(ua, address)]).toEqual([address, null]);
  });

  test('a person without a known address is judged by the User-Agent alone', () => {
    expect(rules.byRequest(SOME_BROWSER, null)).toBeNull();
    expect(rules.byRequest(SOME_BROWSER, 'unknown')).toBeNull();
  });

  test.each(PROXY_ADDRESSES)('a request from a proxy network is a bot, whatever its User-Agent: %s', (address) => {
    expect(rules.byRequest(SOME_BROWSER, address)).toBe('proxy_network');
    // Apple Mail's own User-Agent from Apple's network is Mail Privacy Protection, not the reader.
    expect(rules.byRequest('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)', address)).toBe('proxy_network');
  });

  test.each(OTHER_ADDRESSES)('a browser from an ordinary address is a person: %s', (address) => {
    expect(rules.byRequest(SOME_BROWSER, address)).toBeNull();
  });

  test('the corpus is large enough to mean something', () => {
    const bots = MAIL_PROXIES.length + PREVIEWERS.length + SCANNERS.length + TOOLS.length + CRAWLERS.length;
    const people = BROWSERS.length + BROWSERS_WITH_VENDOR_TOKENS.length + MAIL_APPS_AND_WEBVIEWS.length;
    expect(bots + people).toBeGreaterThanOrEqual(100);
    expect(new Set([...MAIL_PROXIES, ...PREVIEWERS, ...SCANNERS, ...TOOLS, ...CRAWLERS, ...BROWSERS, ...BROWSERS_WITH_VENDOR_TOKENS, ...MAIL_APPS_AND_WEBVIEWS]).size).toBe(bots + people);
  });
});
