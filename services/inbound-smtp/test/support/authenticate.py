#!/usr/bin/python3
"""SPF, DKIM, DMARC and ARC verdicts by an implementation independent of mailauth, as JSON.

For authentication-differential.test.ts. Needs Debian's python3-authheaders, python3-dkim
(dkimpy) and python3-spf (pyspf), which install into the system interpreter (/usr/bin/python3).

Reads one JSON array of requests on stdin and prints one JSON array of results, in order. No
real DNS is ever asked: every answer comes from the request's `records`, a zone in the shape of
test/support/dns-server.ts (`{name: {A, AAAA, MX: [{preference, exchange}], TXT: [str | [str]]}}`;
an unknown name is NXDOMAIN, a known name without the type NODATA).

Requests (`message` is always the raw message, base64):
- {"action": "authenticate", message, ip, helo, mail_from, records}
  -> {"spf": {result, domain}, "dkim": [{result, domain, selector, reason}],
      "dmarc": {result, policy, domain}, "arc": {result, reason}}
  SPF: pyspf's check2 (RFC 7208) on MAIL FROM, or on postmaster@HELO when MAIL FROM is null
  (section 2.4); its domain is the one checked. DKIM: dkimpy verifies every DKIM-Signature, top
  first (RFC 6376); its outcome is written as RFC 8601 section 2.7.1 names it: `pass`; `fail` when
  the signature or body hash does not verify; `permerror` when the signature or its key record
  cannot be used (a malformed tag list, no key, a revoked or unparsable key, a key that does not
  allow the algorithm); `temperror` when DNS failed. DMARC: authheaders' check_dmarc (RFC 7489),
  which weighs SPF and one DKIM result, is asked once per passing signature (and once with none);
  the message passes if any passes. Its domain is the RFC5322.From domain and its policy the one
  that applies (sp= for a subdomain found through its organizational domain). ARC: dkimpy's
  ARC.verify (RFC 8617), its cv as the result.
- {"action": "sign", message, selector, domain, key, algorithm, canonicalize, headers, length}
  -> {"header": "DKIM-Signature: ...\\r\\n"}   (dkimpy; `key` a PKCS#1 PEM, or for ed25519 the
  base64 of the 32-byte seed)
- {"action": "resign", message, key}
  -> {"header": "DKIM-Signature: ...\\r\\n"}   (the message's topmost DKIM-Signature as it reads,
  with b= made anew by dkimpy's own header hashing: for signatures dkimpy will not write, such as
  edited tags, whitespace around `=`, an h= without From or an i= outside d=; rsa only)
- {"action": "arc-seal", message, selector, domain, key, srv_id, headers}
  -> {"headers": ["ARC-Seal: ...", ...]}        (dkimpy's arc_sign; cv from the message's
  Authentication-Results by srv_id, as RFC 8617 section 5.1.1 has the sealer record it)
"""

import base64
import json
import logging
import re
import sys
import traceback

import authheaders
import authheaders.dmarc_lookup
import dkim
import spf
from authheaders.findpsl import location as PSL_LOCATION
from dkim.canonicalization import CanonicalizationPolicy
from dkim.crypto import HASH_ALGORITHMS, RSASSA_PKCS1_v1_5_sign, parse_pem_private_key
from dkim.util import parse_tag_value
from authres import SPFAuthenticationResult, DKIMAuthenticationResult
from publicsuffix2 import PublicSuffixList


def psl_with_default_rule():
    """The system public suffix list, plus the reserved TLD `test` (RFC 6761) the scenarios use.

    publicsuffix2 gives a domain under a TLD the list does not name the TLD itself as its
    organizational domain (sender.test -> test), where the list's own algorithm applies the
    implicit rule "*" (https://publicsuffix.org/list/: "If no rules match, the prevailing rule
    is *"): the TLD is the public suffix and sender.test the organizational domain (RFC 7489
    section 3.2). Listing `test` gives the answer that rule gives, for the TLD the tests use."""
    with open(PSL_LOCATION, encoding='utf-8') as f:
        lines = f.readlines()
    return PublicSuffixList(lines + ['test\n'])


_PSL = psl_with_default_rule()


def org_domain(domain):
    return _PSL.get_public_suffix(domain)


authheaders.get_org_domain = org_domain
authheaders.dmarc_lookup.get_org_domain = org_domain


def norm(name):
    if isinstance(name, bytes):
        name = name.decode('ascii', 'replace')
    return name.lower().rstrip('.')


class Zone:
    def __init__(self, records):
        self.names = {norm(k): v for k, v in (records or {}).items()}

    def txt(self, name):
        """Each TXT record of `name` as a list of its strings, or None when the name is unknown."""
        records = self.names.get(norm(name))
        if records is None:
            return None
        return [r if isinstance(r, list) else [r] for r in records.get('TXT', [])]

    def spf_lookup(self, name, qtype, strict=True, timeout=None):
        """pyspf's DNSLookup: [((name, type), data)]; NXDOMAIN and NODATA are both []."""
        records = self.names.get(norm(name))
        if records is None:
            return []
        key = (name, qtype)
        if qtype in ('TXT', 'SPF'):
            return [(key, [s.encode('utf-8') for s in r]) for r in self.txt(name)] if qtype == 'TXT' else []
        if qtype in ('A', 'AAAA'):
            return [(key, address) for address in records.get(qtype, [])]
        if qtype == 'MX':
            return [(key, (mx['preference'], mx['exchange'])) for mx in records.get('MX', [])]
        return []

    def dkim_txt(self, name, timeout=5):
        """dkimpy's dnsfunc: the first TXT record, its strings joined, as bytes; None when absent."""
        records = self.txt(name)
        if not records:
            return None
        return ''.join(records[0]).encode('utf-8')

    def dmarc_txt(self, name):
        """authheaders' dnsfunc, which takes one string: the one DMARC record among the name's TXT
        records (RFC 7489 section 6.6.3), else the first record, else None."""
        records = self.txt(name)
        if not records:
            return None
        dmarc = [''.join(r) for r in records if ''.join(r).startswith('v=DMARC1')]
        return dmarc[0] if len(dmarc) == 1 else ''.join(records[0])


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def quiet_logger():
    logger = logging.getLogger('authenticate-py-%d' % id(object()))
    logger.propagate = False
    handler = Collect()
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    return logger, handler


PERMERROR_LOG = ('KeyFormatError', 'missing public key', 'could not parse', 'unknown algorithm', 'public key too small',
                 'unknown service type', 'incompatible', 'not valid base64', 'Incorrect padding')


def verify_dkim(raw, zone):
    count = sum(1 for name, _ in dkim.rfc822_parse(raw)[0] if name.lower() == b'dkim-signature')
    results = []
    for idx in range(count):
        logger, log = quiet_logger()
        d = dkim.DKIM(raw, logger=logger)
        reason = None
        try:
            ok = d.verify(idx=idx, dnsfunc=zone.dkim_txt)
            result = 'pass' if ok else None
        except dkim.ValidationError as e:
            reason = str(e)
            result = 'fail' if 'body hash mismatch' in reason else 'permerror'
        except dkim.DnsTimeoutError as e:
            result, reason = 'temperror', str(e)
        except dkim.DKIMException as e:
            result, reason = 'permerror', str(e)
        if result is None:
            errors = [line for line in log.lines if any(word in line for word in PERMERROR_LOG)]
            reason = errors[0] if errors else (log.lines[-1] if log.lines else 'signature did not verify')
            result = 'permerror' if errors else ('temperror' if 'DnsTimeoutError' in reason else 'fail')
        fields = getattr(d, 'signature_fields', {}) or {}
        results.append({
            'result': result,
            'domain': norm(fields[b'd']) if fields.get(b'd') else None,
            'selector': fields[b's'].decode('ascii', 'replace') if fields.get(b's') else None,
            'reason': reason,
        })
    return results


def check_spf(ip, mail_from, helo):
    sender = mail_from or ('postmaster@' + helo if helo else '')
    domain = sender.rsplit('@', 1)[-1].lower() if sender else None
    result, _ = spf.check2(ip, mail_from or '', helo or '', querytime=0, timeout=5)
    return {'result': result, 'domain': domain}, sender


class KeptMailFrom(SPFAuthenticationResult):
    """An SPF result whose smtp_mailfrom keeps its first value. authheaders' dmarc_per_from replaces
    it with its domain, then, for a From with several addresses, reads it again for the next one and
    finds no `@` (IndexError in get_domain_part)."""

    @property
    def smtp_mailfrom(self):
        return self.__dict__.get('_kept_mailfrom')

    @smtp_mailfrom.setter
    def smtp_mailfrom(self, value):
        self.__dict__.setdefault('_kept_mailfrom', value)


def check_dmarc(raw, zone, spf_verdict, sender, signatures):
    spf_result = SPFAuthenticationResult(result=spf_verdict['result'], smtp_mailfrom=sender or 'postmaster@invalid')
    attempts = [None] + [DKIMAuthenticationResult(result='pass', header_d=s['domain']) for s in signatures if s['result'] == 'pass']
    if not any(name.lower() == b'from' for name, _ in dkim.rfc822_parse(raw)[0]):
        # check_dmarc means `none` here but raises (it names from_domain before setting it).
        return {'result': 'none', 'policy': None, 'domain': None}
    verdicts = []
    for dkim_result in attempts:
        spf_copy = KeptMailFrom(result=spf_result.result, smtp_mailfrom=spf_result.smtp_mailfrom)
        verdicts.append(authheaders.check_dmarc(raw, spf_copy, dkim_result, dnsfunc=zone.dmarc_txt))
    best = next((v for v in verdicts if v.result == 'pass'), verdicts[0])
    return {'result': best.result, 'policy': getattr(best, 'policy', None) or None, 'domain': best.header_from or None}


def verify_arc(raw, zone):
    logger, log = quiet_logger()
    try:
        cv, _, comment = dkim.ARC(raw, logger=logger).verify(dnsfunc=zone.dkim_txt)
        # dkimpy answers None when a seal says cv=fail: the chain is terminated, so fail (RFC 8617 section 5.2 step 2).
        return {'result': cv.decode('ascii') if cv else 'fail', 'reason': None if comment == 'success' else comment}
    except dkim.DKIMException as e:
        return {'result': 'fail', 'reason': str(e)}


def authenticate(request):
    raw = base64.b64decode(request['message'])
    zone = Zone(request.get('records'))
    spf.DNSLookup = zone.spf_lookup
    spf_verdict, sender = check_spf(request.get('ip'), request.get('mail_from'), request.get('helo'))
    signatures = verify_dkim(raw, zone)
    return {
        'spf': spf_verdict,
        'dkim': signatures,
        'dmarc': check_dmarc(raw, zone, spf_verdict, sender, signatures),
        'arc': verify_arc(raw, zone),
    }


def sign(request):
    raw = base64.b64decode(request['message'])
    header, body = request.get('canonicalize', 'relaxed/relaxed').split('/')
    logger, _ = quiet_logger()
    signature = dkim.sign(
        raw,
        request['selector'].encode(),
        request['domain'].encode(),
        request['key'].encode(),
        canonicalize=(header.encode(), body.encode()),
        signature_algorithm=request.get('algorithm', 'rsa-sha256').encode(),
        include_headers=[h.encode() for h in request['headers']],
        length=bool(request.get('length')),
        logger=logger,
    )
    return {'header': signature.decode('ascii')}


def resign(request):
    raw = base64.b64decode(request['message'])
    message = dkim.DKIM(raw)
    name, value = next((n, v) for n, v in message.headers if n.lower() == b'dkim-signature')
    sig = parse_tag_value(value)
    policy = CanonicalizationPolicy.from_c_value(sig.get(b'c', b'simple/simple'))
    include = [x.lower() for x in re.split(br'\s*:\s*', sig[b'h'].strip())]
    hasher = HASH_ALGORITHMS[sig[b'a']]()
    # What verification hashes (dkim.DomainSigner.verify_sig_process), b= emptied by dkim.RE_BTAG.
    dkim.hash_headers(hasher, policy, policy.canonicalize_headers(message.headers), include, (name, value), sig)
    b = base64.b64encode(bytes(RSASSA_PKCS1_v1_5_sign(hasher, parse_pem_private_key(request['key'].encode()))))
    unterminated = value[:-2] if value.endswith(b'\r\n') else value
    field = name + b':' + dkim.RE_BTAG.sub(lambda m: m.group(1) + b, unterminated, count=1) + b'\r\n'
    return {'header': field.decode('ascii')}


def arc_seal(request):
    raw = base64.b64decode(request['message'])
    logger, _ = quiet_logger()
    headers = dkim.arc_sign(
        raw,
        request['selector'].encode(),
        request['domain'].encode(),
        request['key'].encode(),
        request['srv_id'].encode(),
        include_headers=[h.encode() for h in request['headers']],
        logger=logger,
    )
    return {'headers': [h.decode('ascii') for h in headers]}


ACTIONS = {'authenticate': authenticate, 'sign': sign, 'resign': resign, 'arc-seal': arc_seal}


def main():
    results = []
    for request in json.load(sys.stdin):
        try:
            results.append(ACTIONS[request['action']](request))
        except Exception as e:  # reported per request, so one bad case does not hide the others
            results.append({'error': '%s #%d: %s' % (request.get('action'), len(results), traceback.format_exc())})
    json.dump(results, sys.stdout)


if __name__ == '__main__':
    main()
