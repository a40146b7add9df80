import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  test('when nothing is set, then the DESIGN §3 defaults apply', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      databaseUrl: 'postgresql://postgres@127.0.0.1:5432/mailroom',
      redisUrl: 'redis://127.0.0.1:6379',
      queuePrefix: 'mailroom',
      apiPort: 3000,
      trackingPort: 3001,
      smtpPort: 2525,
      publicApiUrl: 'http://localhost:3000',
      trackingBaseUrl: 'http://localhost:3001',
      mxPort: 25,
      allowPrivateNetworks: false,
      bounceDomain: 'bounces.localhost',
      sessionTtlSeconds: 43200,
      allowSignup: undefined,
      webhookTimeoutSeconds: 15,
      leaseSeconds: 300,
      reconcileIntervalSeconds: 60,
      rateLimitPerSecond: 50,
      inboundMaxMessageBytes: 26214400,
    });
    expect(config.webhookRetrySchedule).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(config.smtpRetrySchedule).toHaveLength(17);
    expect(Object.isFrozen(config)).toBe(true);
  });

  test('when values are given, then they are parsed and typed', () => {
    const config = loadConfig({
      API_PORT: '8080',
      ALLOW_PRIVATE_NETWORKS: 'true',
      ALLOW_SIGNUP: 'false',
      SMTP_RETRY_SCHEDULE: '1, 2,3',
      DNS_SERVERS: '127.0.0.1:5353, 10.0.0.1',
      PUBLIC_API_URL: 'https://mail.example.com/',
    });
    expect(config.apiPort).toBe(8080);
    expect(config.allowPrivateNetworks).toBe(true);
    expect(config.allowSignup).toBe(false);
    expect(config.smtpRetrySchedule).toEqual([1, 2, 3]);
    expect(config.dnsServers).toEqual(['127.0.0.1:5353', '10.0.0.1']);
    expect(config.publicApiUrl).toBe('https://mail.example.com');
  });

  test.each([
    ['API_PORT', 'notaport'],
    ['ALLOW_PRIVATE_NETWORKS', 'yes'],
    ['WEBHOOK_RETRY_SCHEDULE', '5,,300'],
    ['DATABASE_URL', 'mysql://x'],
    ['SECRET_KEY', 'short'],
    ['PUBLIC_API_URL', 'ftp://x'],
  ])('when %s is invalid, then loading fails naming it', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(new RegExp(`^Invalid ${variable}`));
  });

  test('when NODE_ENV=production has no SECRET_KEY, then loading fails naming SECRET_KEY', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/SECRET_KEY/);
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY: 'x'.repeat(32) }).secretKey).toBe('x'.repeat(32));
  });
});
