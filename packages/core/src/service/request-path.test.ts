import { requestPath } from './request-path';

describe('requestPath', () => {
  test.each([
    ['/c/abc?utm=1', '/c/abc'],
    ['/o/abc', '/o/abc'],
    ['http://track.example/c/abc?x=1', '/c/abc'],
    ['HTTP://TRACK.EXAMPLE:8080/healthz', '/healthz'],
    ['*', '*'],
    [undefined, '/'],
  ])('when the request target is %s, then the path is %s', (target, path) => {
    expect(requestPath(target)).toBe(path);
  });
});
