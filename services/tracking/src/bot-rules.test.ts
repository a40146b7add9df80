import { BotRules } from './bot-rules';

const rules = new BotRules({ minClickSeconds: 5 });
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

describe('bot rules', () => {
  test('when a request names a proxy, a crawler or nothing, or comes from a proxy network, then it is a bot; a browser at home is a person', () => {
    expect(rules.byRequest(BROWSER, '198.51.100.7')).toBeNull();
    expect(rules.byRequest('Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17029; Pro)', '198.51.100.7')).toBeNull();
    expect(rules.byRequest('Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)', '66.249.84.1')).toBe('image_proxy');
    expect(rules.byRequest('YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html', '98.137.1.1')).toBe('image_proxy');
    expect(rules.byRequest('Mozilla/5.0', '198.51.100.7')).toBe('image_proxy');
    expect(rules.byRequest('curl/8.5.0', '198.51.100.7')).toBe('bot_user_agent');
    expect(rules.byRequest('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', '198.51.100.7')).toBe('bot_user_agent');
    expect(rules.byRequest(null, '198.51.100.7')).toBe('no_user_agent');
    expect(rules.byRequest('  ', '198.51.100.7')).toBe('no_user_agent');
    // Apple Mail Privacy Protection and Microsoft's mail protection fetch from their own networks.
    expect(rules.byRequest(BROWSER, '17.58.1.20')).toBe('proxy_network');
    expect(rules.byRequest(BROWSER, '::ffff:17.58.1.20')).toBe('proxy_network');
    expect(rules.byRequest(BROWSER, '2a01:b747:3001:200::1')).toBe('proxy_network');
    expect(rules.byRequest(BROWSER, '2620:149:a:1::5')).toBe('proxy_network');
    expect(rules.byRequest(BROWSER, '2403:300:a0c:f000::2')).toBe('proxy_network');
    // Next to Apple's RIPE block, someone else's.
    expect(rules.byRequest(BROWSER, '2a01:b748::1')).toBeNull();
    expect(rules.byRequest(BROWSER, '40.107.22.5')).toBe('proxy_network');
    expect(rules.byRequest(BROWSER, '2a01:111:f400:fe1e::1')).toBe('proxy_network');
    expect(rules.byRequest(BROWSER, 'not an address')).toBeNull();
  });

  test('when a click comes before the message could be read, or with another link within a second, then it is a scanner', () => {
    const deliveredAt = new Date('2026-11-23T10:00:00Z');
    const at = (s: number) => new Date(deliveredAt.getTime() + s * 1000);
    const link = 'https://acme.example/a';
    expect(rules.byTiming({ at: at(60), link }, { deliveredAt, otherClicks: [] })).toBeNull();
    expect(rules.byTiming({ at: at(2), link }, { deliveredAt, otherClicks: [] })).toBe('click_before_readable');
    expect(rules.byTiming({ at: at(-1), link }, { deliveredAt, otherClicks: [] })).toBe('click_before_readable');
    expect(rules.byTiming({ at: at(60), link }, { deliveredAt: null, otherClicks: [] })).toBe('click_before_readable');
    expect(rules.byTiming({ at: at(60), link }, { deliveredAt, otherClicks: [{ at: at(60.4), link: 'https://acme.example/b' }] })).toBe('click_burst');
    // The same link twice (a double click) and another link seconds later are a person's.
    expect(rules.byTiming({ at: at(60), link }, { deliveredAt, otherClicks: [{ at: at(60.2), link }] })).toBeNull();
    expect(rules.byTiming({ at: at(60), link }, { deliveredAt, otherClicks: [{ at: at(63), link: 'https://acme.example/b' }] })).toBeNull();
  });
});
