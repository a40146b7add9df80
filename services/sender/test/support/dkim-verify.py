#!/usr/bin/python3
"""Verifies the DKIM signatures of one message with dkimpy, an implementation independent of
nodemailer and mailauth (which share an author), so a canonicalization bug shared by our signer
and our usual verifier still shows.

Usage: dkim-verify.py NAME TXT [NAME TXT ...] < message

The message (raw RFC 5322 bytes, as received) is read on stdin. Each NAME TXT pair is a DNS TXT
record, e.g. "s1._domainkey.acme.example" "v=DKIM1; k=rsa; p=MIIB...": the only records the
lookups see (no real DNS is asked; any other name answers nothing). Prints one JSON object:

  {"signatures": [{"index", "pass", "domain", "selector", "headers", "canonicalization",
                   "reason", "log"}...]}

`reason` is null on a pass, else dkimpy's own words (the exception it raised, or its last log
line). Needs the Debian package python3-dkim (dkimpy); run it with /usr/bin/python3.
"""

import json
import logging
import re
import sys

import dkim


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def main(argv):
    if len(argv) % 2 != 0:
        print('usage: dkim-verify.py NAME TXT [NAME TXT ...] < message', file=sys.stderr)
        return 2
    records = {}
    for name, value in zip(argv[0::2], argv[1::2]):
        records[name.lower().rstrip('.')] = value.encode('ascii')
    looked_up = []

    def dnsfunc(name, timeout=5):
        key = (name.decode('ascii') if isinstance(name, bytes) else name).lower().rstrip('.')
        looked_up.append(key)
        return records.get(key)

    message = sys.stdin.buffer.read()
    # Count the signatures as dkimpy's own parser sees the header section.
    headers, _body = dkim.rfc822_parse(message)
    count = sum(1 for (field, _value) in headers if field.lower() == b'dkim-signature')

    results = []
    for index in range(count):
        handler = Collect()
        logger = logging.getLogger('dkim-verify-%d' % index)
        logger.setLevel(logging.DEBUG)
        logger.propagate = False
        logger.addHandler(handler)
        verifier = dkim.DKIM(message, logger=logger, minkey=1024)
        reason = None
        try:
            ok = bool(verifier.verify(idx=index, dnsfunc=dnsfunc))
            if not ok:
                errors = [line for line in handler.lines if 'valid: False' in line or 'error' in line.lower()]
                reason = (errors or handler.lines or ['signature did not verify'])[-1]
        except dkim.DKIMException as e:
            ok = False
            reason = '%s: %s' % (type(e).__name__, e)
        fields = getattr(verifier, 'signature_fields', None) or {}
        text = lambda k: fields[k].decode('ascii', 'replace') if k in fields else None
        results.append({
            'index': index,
            'pass': ok,
            'domain': text(b'd'),
            'selector': text(b's'),
            'headers': [h for h in re.split(r'\s*:\s*', text(b'h') or '') if h],
            'canonicalization': text(b'c'),
            'reason': reason,
            'log': [line for line in handler.lines if not line.startswith('sig:')][-4:] if not ok else [],
        })
    print(json.dumps({'signatures': results, 'lookedUp': looked_up}))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
