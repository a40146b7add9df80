import { dkimResult } from './dkim-result';

const KEY = 'v=DKIM1;k=rsa;p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA';

describe('dkimResult', () => {
  test('when mailauth says neutral because the body hash did not verify, then the signature failed', () => {
    expect(dkimResult({ status: { result: 'neutral', comment: 'body hash did not verify' }, algo: 'rsa-sha256' })).toBe('fail');
  });

  test.each(['no key', 'unknown key version', 'unknown key type', 'invalid public key'])('when mailauth says neutral (%s), then it is a permerror', (comment) => {
    expect(dkimResult({ status: { result: 'neutral', comment }, algo: 'rsa-sha256' })).toBe('permerror');
  });

  test('when the key record allows only sha1 and the signature is rsa-sha256, then a pass is withdrawn as permerror', () => {
    expect(dkimResult({ status: { result: 'pass' }, algo: 'rsa-sha256', rr: `${KEY.replace(';p=', ';h=sha1;p=')}` })).toBe('permerror');
  });

  test('when the key record lists the hash (in any case, among others) or has no h=, then a pass stays a pass', () => {
    expect(dkimResult({ status: { result: 'pass' }, algo: 'rsa-sha256', rr: KEY.replace(';p=', ';h=SHA1:sha256;p=') })).toBe('pass');
    expect(dkimResult({ status: { result: 'pass' }, algo: 'ed25519-sha256', rr: KEY })).toBe('pass');
  });

  test.each(['expired', 'invalid expiration'])('when mailauth says neutral (%s: x= passed, or before t=), then it is a permerror', (comment) => {
    expect(dkimResult({ status: { result: 'neutral', comment }, algo: 'rsa-sha256' })).toBe('permerror');
  });

  test('when mailauth says neutral for another reason, or fail, then its result stands', () => {
    expect(dkimResult({ status: { result: 'neutral', comment: 'error:1C800064:Provider routines::bad decrypt' }, algo: 'rsa-sha256' })).toBe('neutral');
    expect(dkimResult({ status: { result: 'fail', comment: 'bad signature' }, algo: 'rsa-sha256' })).toBe('fail');
  });

  test('when the signature is rsa-sha1 (RFC 8301), then even a verified one is a permerror', () => {
    expect(dkimResult({ status: { result: 'pass' }, algo: 'rsa-sha1', rr: KEY })).toBe('permerror');
    expect(dkimResult({ status: { result: 'pass' }, algo: 'RSA-SHA1' })).toBe('permerror');
  });

  const tags = (entries: Record<string, string>) => new Map(Object.entries({ d: 'example.test', h: 'from:to:subject', ...entries }));

  test('when h= does not name From, or is missing, then a verified signature is a permerror', () => {
    expect(dkimResult({ status: { result: 'pass' }, algo: 'rsa-sha256' }, tags({ h: 'to:subject:date' }))).toBe('permerror');
    expect(dkimResult({ status: { result: 'pass' }, algo: 'rsa-sha256' }, new Map([['d', 'example.test']]))).toBe('permerror');
    expect(dkimResult({ status: { result: 'pass' }, algo: 'rsa-sha256' }, tags({ h: 'To:FROM' }))).toBe('pass');
  });

  test('when i= is not d= or a subdomain of it, then a verified signature is a permerror', () => {
    const passed = { status: { result: 'pass' }, algo: 'rsa-sha256' };
    expect(dkimResult(passed, tags({ i: '@other.test' }))).toBe('permerror');
    expect(dkimResult(passed, tags({ i: '@notexample.test' }))).toBe('permerror');
    expect(dkimResult(passed, tags({ i: 'example.test' }))).toBe('permerror');
    expect(dkimResult(passed, tags({ i: 'ada@Mail.Example.test' }))).toBe('pass');
    expect(dkimResult(passed, tags({ i: '@example.test' }))).toBe('pass');
  });
});
