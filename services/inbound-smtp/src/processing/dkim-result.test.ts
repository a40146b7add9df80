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

  test('when mailauth says neutral for another reason (an expired signature), then its result stands', () => {
    expect(dkimResult({ status: { result: 'neutral', comment: 'expired' }, algo: 'rsa-sha256' })).toBe('neutral');
    expect(dkimResult({ status: { result: 'fail', comment: 'bad signature' }, algo: 'rsa-sha256' })).toBe('fail');
  });
});
