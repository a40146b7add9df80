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
    const production = { NODE_ENV: 'production', SECRET_KEY: 'x'.repeat(32), DOMAIN_MX_HOST: 'mx.mail.example.com', DOMAIN_SPF_MECHANISMS: 'ip4:203.0.113.10' };
    expect(loadConfig(production).secretKey).toBe('x'.repeat(32));
  });

  test('when NODE_ENV=production leaves DOMAIN_MX_HOST or DOMAIN_SPF_MECHANISMS unset, then loading fails naming it (their defaults fit one machine only)', () => {
    const production = { NODE_ENV: 'production', SECRET_KEY: 'x'.repeat(32), DOMAIN_MX_HOST: 'mx.mail.example.com', DOMAIN_SPF_MECHANISMS: 'ip4:203.0.113.10' };
    expect(() => loadConfig({ ...production, DOMAIN_MX_HOST: undefined })).toThrow(/^Invalid DOMAIN_MX_HOST: required when NODE_ENV=production/);
    expect(() => loadConfig({ ...production, DOMAIN_SPF_MECHANISMS: undefined })).toThrow(/^Invalid DOMAIN_SPF_MECHANISMS: required when NODE_ENV=production/);
    expect(loadConfig(production).domainMxHost).toBe('mx.mail.example.com');
    expect(loadConfig({ NODE_ENV: 'development' }).domainMxHost).toBe('localhost');
  });

  test('when EMAIL_RETENTION_DAYS is under 15, then loading fails naming it (recover reaches 14 days back)', () => {
    expect(loadConfig({}).emailRetentionDays).toBe(30);
    expect(() => loadConfig({ EMAIL_RETENTION_DAYS: '14' })).toThrow(/^Invalid EMAIL_RETENTION_DAYS/);
    expect(loadConfig({ EMAIL_RETENTION_DAYS: '15' }).emailRetentionDays).toBe(15);
  });

  test('when DATABASE_STATEMENT_TIMEOUT_MS is unset, then statements may run 30 s; under 1000 or not a whole number, loading fails naming it', () => {
    expect(loadConfig({}).databaseStatementTimeoutMs).toBe(30_000);
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '5000' }).databaseStatementTimeoutMs).toBe(5_000);
    for (const bad of ['999', '0', '1.5', '30s']) {
      expect(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: bad })).toThrow(/^Invalid DATABASE_STATEMENT_TIMEOUT_MS: expected a whole number of milliseconds, at least 1000/);
    }
  });

  test('when the MX may hold fewer message bytes than one message can have, then loading fails naming INBOUND_MAX_BUFFERED_BYTES', () => {
    expect(loadConfig({}).inboundMaxBufferedBytes).toBe(134217728);
    expect(() => loadConfig({ INBOUND_MAX_MESSAGE_BYTES: '200000000' })).toThrow(/^Invalid INBOUND_MAX_BUFFERED_BYTES: .*INBOUND_MAX_MESSAGE_BYTES/);
    expect(loadConfig({ INBOUND_MAX_MESSAGE_BYTES: '200000000', INBOUND_MAX_BUFFERED_BYTES: '200000000' }).inboundMaxBufferedBytes).toBe(200000000);
  });
});

describe('configuration errors', () => {
  const message = (env: Record<string, string>): string => {
    try {
      loadConfig(env);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error('loadConfig accepted the environment');
  };

  test.each([
    ['API_PORT', 'abc', 'Invalid API_PORT: expected a port number from 0 to 65535 (got "abc").'],
    ['SMTP_PORT', '70000', 'Invalid SMTP_PORT: expected a port number from 0 to 65535 (got "70000").'],
    ['ALLOW_PRIVATE_NETWORKS', 'yes', 'Invalid ALLOW_PRIVATE_NETWORKS: expected true or false (got "yes").'],
    ['ALLOW_SIGNUP', '1', 'Invalid ALLOW_SIGNUP: expected true or false (got "1").'],
    ['SESSION_TTL_SECONDS', '1.5', 'Invalid SESSION_TTL_SECONDS: expected a whole number of seconds, at least 60 (got "1.5").'],
    ['WEBHOOK_TIMEOUT_SECONDS', 'ten', 'Invalid WEBHOOK_TIMEOUT_SECONDS: expected a whole number of seconds, at least 1 (got "ten").'],
    ['SMTP_RETRY_SCHEDULE', '5,,300', 'Invalid SMTP_RETRY_SCHEDULE: expected a comma list of whole seconds, such as "5,300,1800" (got "5,,300").'],
    ['NODE_ENV', 'prod', 'Invalid NODE_ENV: expected one of development, test, production (got "prod").'],
    ['LOG_LEVEL', 'verbose', 'Invalid LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent (got "verbose").'],
    ['ADMIN_EMAIL', 'admin', 'Invalid ADMIN_EMAIL: expected an email address, such as admin@example.com (got "admin").'],
    ['PUBLIC_API_URL', 'ftp://x', 'Invalid PUBLIC_API_URL: expected an http:// or https:// URL, such as https://mail.example.com (got "ftp://x").'],
    ['DNS_SERVERS', '8.8.8.8;1.1.1.1', 'Invalid DNS_SERVERS: expected a comma list of ip[:port], such as 1.1.1.1,8.8.8.8:53 (got "8.8.8.8;1.1.1.1").'],
    ['DNS_SERVERS', 'dns.google', 'Invalid DNS_SERVERS: expected a comma list of ip[:port], such as 1.1.1.1,8.8.8.8:53 (got "dns.google").'],
    ['RATE_LIMIT_PER_SECOND', '-1', 'Invalid RATE_LIMIT_PER_SECOND: expected a whole number of requests per second (0 turns the limit off) (got "-1").'],
  ])('when %s=%s, then the message says what a valid value looks like', (variable, value, expected) => {
    const env: Record<string, string> = { [variable]: value };
    if (variable === 'ADMIN_EMAIL') env.ADMIN_PASSWORD = 'long enough password';
    expect(message(env)).toBe(expected);
  });

  test('when a number variable is set but empty, then its default applies rather than 0', () => {
    const config = loadConfig({ API_PORT: '', RATE_LIMIT_PER_SECOND: '', SESSION_TTL_SECONDS: '' });
    expect(config.apiPort).toBe(3000);
    expect(config.rateLimitPerSecond).toBe(50);
    expect(config.sessionTtlSeconds).toBe(43200);
  });

  test('when DNS_SERVERS lists ip, ip:port and [v6]:port, then all are accepted', () => {
    expect(loadConfig({ DNS_SERVERS: '1.1.1.1, 127.0.0.1:5353, ::1, [2001:db8::1]:53' }).dnsServers).toEqual([
      '1.1.1.1',
      '127.0.0.1:5353',
      '::1',
      '[2001:db8::1]:53',
    ]);
  });

  test('when several variables are invalid, then each is named on its own line', () => {
    expect(message({ API_PORT: 'abc', ALLOW_SIGNUP: 'yes' }).split('\n')).toEqual([
      expect.stringMatching(/^Invalid API_PORT: /),
      expect.stringMatching(/^Invalid ALLOW_SIGNUP: /),
    ]);
  });

  test.each([
    ['SECRET_KEY', 'hunter2-but-too-short'],
    ['ADMIN_PASSWORD', 'pw5ecr'],
  ])('when the secret %s is invalid, then the message names it without showing its value', (variable, secret) => {
    const env: Record<string, string> = { [variable]: secret, ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'long enough password' };
    env[variable] = secret;
    const text = message(env);
    expect(text).toMatch(new RegExp(`^Invalid ${variable}: expected .*, not shown\\)\\.$`));
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice(0, 4));
  });

  test.each([
    ['DATABASE_URL', 'mysql://mailroom:s3cr3t-db-pass@db.internal/mailroom', 'mysql://mailroom:***@db.internal/mailroom'],
    ['DATABASE_URL', 'postgresql:/mailroom:s3cr3t-db-pass@db.internal/mailroom', 'postgresql:***@db.internal/mailroom'],
    ['DATABASE_URL', 'postgres://db.internal:x/mailroom?user=m&password=s3cr3t-db-pass', '(got "postgres://db.internal:x/mailroom?user=m&password=***")'],
    ['DATABASE_URL', 'mysql://db.internal/mailroom?user=m&password=s3cr3t-db-pass', 'mysql://db.internal/mailroom?user=m&password=***'],
    ['REDIS_URL', 'http://default:s3cr3t-redis-pass@cache:6379', 'http://default:***@cache:6379'],
    ['OUTBOUND_SMTP_URL', 'smtp://user:s3cr3t-smtp-pass@relay:notaport', 'smtp://user:***@relay:notaport'],
    ['OUTBOUND_SMTP_URL', 'ftp://user:s3cr3t-smtp-pass@relay', 'ftp://user:***@relay'],
  ])('when %s holding a password is invalid, then the message shows the URL without the password', (variable, url, shown) => {
    const text = message({ [variable]: url });
    expect(text).toMatch(new RegExp(`^Invalid ${variable}: expected an? .*URL`));
    expect(text).toContain(shown);
    expect(text).not.toContain('s3cr3t');
  });

  test('when METRICS_TOKEN is fine but another variable is not, then the token appears nowhere', () => {
    const text = message({ METRICS_TOKEN: 'metrics-s3cr3t', SECRET_KEY: 'also-s3cr3t', API_PORT: 'x' });
    expect(text).not.toContain('s3cr3t');
    expect(text).toContain('Invalid SECRET_KEY');
  });
});
