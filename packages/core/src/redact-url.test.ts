import { DependencyUnavailableError, redactUrl } from './run-service';

describe('redactUrl', () => {
  test.each([
    ['postgresql://postgres:pgS3cretPW@127.0.0.1:5432/mailroom', 'postgresql://postgres:***@127.0.0.1:5432/mailroom'],
    // pg and ioredis take a password from the query as well.
    ['postgresql://postgres@127.0.0.1:4439/mailroom?password=pgS3cretPW', 'postgresql://postgres@127.0.0.1:4439/mailroom?password=***'],
    ['redis://127.0.0.1:4478/?password=redisS3cretPW', 'redis://127.0.0.1:4478/?password=***'],
    ['postgresql://127.0.0.1/mailroom?sslmode=require&sslpassword=k3yS3cret&user=m', 'postgresql://127.0.0.1/mailroom?sslmode=require&sslpassword=***&user=m'],
    // A raw "@" or "#" in the password, which a URL parser splits at.
    ['postgresql://postgres:p@ss#pgS3cretPW@127.0.0.1:4439/mailroom', 'postgresql://postgres:***@127.0.0.1:4439/mailroom'],
    ['redis://:p@ss@cache:6379', 'redis://***@cache:6379'],
    ['redis://default@cache:6379', 'redis://default@cache:6379'],
    ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
  ])('when %j is shown, then it is %j', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  test('when a backing service is unreachable, then the start-up message names the URL without any of its secrets', () => {
    const message = new DependencyUnavailableError('PostgreSQL', 'postgresql://postgres:p@ss#pgS3cretPW@db:5432/m?password=other').message;
    expect(message).not.toMatch(/S3cret|other|p@ss/);
    expect(message).toContain('postgresql://postgres:***@db:5432/m?password=***');
  });
});
