#!/usr/bin/env python3
"""What Python's standard-library email package makes of bounce and complaint reports, as JSON.

An independent reader for feedback-differential.test.ts. Stdlib only. Usage: read-report.py FILE...
prints one JSON object {FILE: result}; a result is {"error": "..."} when Python raises.

Every message is read with email.message_from_bytes(raw, policy=email.policy.default). Python
parses a message/delivery-status body into one header block per group (RFC 3464 section 2.1) and
any other message/* body, message/feedback-report included, into a nested message. This script
only finds the parts and reads the fields as the RFCs define them, and nothing more:
- The report: the first message/delivery-status, message/global-delivery-status (RFC 6533) or
  text/delivery-status part (a pre-RFC 1894 label, read the same way), else the first
  message/feedback-report part (RFC 5965), outside any attached message. Python gives the
  global-delivery-status its first group as headers and the rest as body, and a text part as
  text: those groups are split at blank lines and each parsed as headers by Python.
  The transfer encoding of a message/* part is not undone (RFC 2046 section 5.2.1), as Python.
- DSN (RFC 3464 section 2.2, 2.3): the first group is per-message (Reporting-MTA), the others are
  per-recipient. `type; value` fields lose their type (address-type, diagnostic-type,
  mta-name-type); a utf-8 address-type has its \\x{HEX} escapes decoded (RFC 6533 section 3);
  an rfc822 one is kept as written. Action is lower-cased; Status is its status-code (RFC 3464
  section 2.3.4, RFC 3463) once comments are removed, null when what is left is not one.
- ARF (RFC 5965 section 3.1, 3.2): every field as written, multi-valued ones as lists.
- The returned original: the first message/rfc822, message/global, text/rfc822-headers,
  message/rfc822-headers or message/global-headers part; its Message-ID, Return-Path and the
  addr-specs of its To (Python's own address parser).
- Header values: Python keeps 8-bit bytes as lone surrogates; they are given back as UTF-8
  (RFC 6532), U+FFFD where they are not UTF-8. Whitespace runs are one space.
"""

import email
import email.parser
import email.policy
import json
import re
import sys

POLICY = email.policy.default
DSN_TYPES = ('message/delivery-status', 'message/global-delivery-status', 'text/delivery-status')
ORIGINAL_TYPES = ('message/rfc822', 'message/global', 'text/rfc822-headers', 'message/rfc822-headers', 'message/global-headers')
_SURROGATES = re.compile('[\udc80-\udcff]+')
_STATUS = re.compile(r'^([245])\.(\d{1,3})\.(\d{1,3})$')
_TYPED = re.compile(r'^\s*([A-Za-z0-9][A-Za-z0-9._+-]*)\s*;(.*)$', re.S)


def text(value):
    """A header value as str: surrogateescaped bytes read as UTF-8, whitespace runs one space."""
    if value is None:
        return None
    value = str(value)
    if _SURROGATES.search(value):
        value = value.encode('utf-8', 'surrogateescape').decode('utf-8', 'replace')
    value = re.sub(r'\s+', ' ', value).strip()
    return value


def field(block, name):
    return text(block.get(name)) if block is not None and block.get(name) is not None else None


def fields(block, name):
    return [text(v) for v in (block.get_all(name) or [])]


def without_comments(value):
    """RFC 5322 comments (nested, with quoted-pairs) removed."""
    out, depth, i = '', 0, 0
    while i < len(value):
        c = value[i]
        if c == '\\' and depth > 0:
            i += 2
            continue
        if c == '(':
            depth += 1
        elif c == ')' and depth > 0:
            depth -= 1
        elif depth == 0:
            out += c
        i += 1
    return out.strip()


def typed(value):
    """`type; value` as (type lower-cased, value); (None, value) without a type."""
    if value is None:
        return None, None
    m = _TYPED.match(value)
    return (m.group(1).lower(), m.group(2).strip()) if m else (None, value.strip())


def address(value):
    """An address-type ";" generic-address field: the address, RFC 6533 escapes decoded for utf-8."""
    kind, addr = typed(value)
    if addr is None:
        return None
    if kind == 'utf-8':
        addr = re.sub(r'\\x\{([0-9A-Fa-f]{1,6})\}', lambda m: chr(int(m.group(1), 16)), addr)
    return addr


def status(value):
    if value is None:
        return None
    m = _STATUS.match(without_comments(value))
    return f'{m.group(1)}.{int(m.group(2))}.{int(m.group(3))}' if m else None


def children(part):
    """Subparts of a multipart; an attached message/* is not entered."""
    if part.is_multipart() and part.get_content_maintype() == 'multipart':
        return part.get_payload()
    return []


def parts(msg):
    out = [msg]
    for child in children(msg):
        out.extend(parts(child))
    return out


def parse_blocks(data):
    """Header groups of a text split at blank lines, each parsed by Python."""
    groups = re.split(r'\r?\n[ \t]*\r?\n', data.replace('\r\n', '\n'))
    return [email.parser.BytesParser(policy=POLICY).parsebytes(g.strip('\n').encode('utf-8', 'surrogateescape') + b'\n', headersonly=True) for g in groups if g.strip()]


def status_groups(part):
    kind = part.get_content_type()
    payload = part.get_payload()
    if kind == 'message/delivery-status':
        return [b for b in payload if len(b.keys()) > 0]
    if kind == 'message/global-delivery-status':
        first = payload[0] if payload else None
        if first is None:
            return []
        # decode=True gives the body's bytes as they came (no transfer encoding is undone on a
        # message/* part); without it Python reads 8-bit bytes as us-ascii (U+FFFD).
        rest = first.get_payload(decode=True) or b''
        return ([first] if len(first.keys()) > 0 else []) + parse_blocks(rest.decode('utf-8', 'surrogateescape'))
    return parse_blocks(part.get_content())


def read_dsn(part):
    groups = status_groups(part)
    per_message = groups[0] if groups else None
    recipients = []
    for group in groups[1:]:
        action = field(group, 'action')
        recipients.append(
            {
                'finalRecipient': address(field(group, 'final-recipient')),
                'originalRecipient': address(field(group, 'original-recipient')),
                'action': without_comments(action).lower() if action is not None else None,
                'status': status(field(group, 'status')),
                'statusField': field(group, 'status'),
                'diagnostic': typed(field(group, 'diagnostic-code'))[1],
                'remoteMta': typed(field(group, 'remote-mta'))[1],
            }
        )
    return {
        'partType': part.get_content_type(),
        'reportingMta': typed(field(per_message, 'reporting-mta'))[1],
        'recipients': recipients,
    }


def read_arf(part):
    payload = part.get_payload()
    block = payload[0] if isinstance(payload, list) and payload else None
    return {
        'feedbackType': field(block, 'feedback-type'),
        'userAgent': field(block, 'user-agent'),
        'version': field(block, 'version'),
        'originalMailFrom': field(block, 'original-mail-from'),
        'originalRcptTo': fields(block, 'original-rcpt-to') if block is not None else [],
        'arrivalDate': field(block, 'arrival-date'),
        'sourceIp': field(block, 'source-ip'),
        'reportedDomain': fields(block, 'reported-domain') if block is not None else [],
    }


def read_original(part):
    if part.get_content_maintype() == 'message':
        payload = part.get_payload()
        headers = payload[0] if isinstance(payload, list) and payload else None
    else:
        headers = email.parser.BytesParser(policy=POLICY).parsebytes(part.get_payload(decode=True) or b'', headersonly=True)
    if headers is None:
        return None
    to = []
    try:
        header = headers['to']
        to = [text(a.addr_spec) for a in header.addresses] if header is not None else []
    except Exception:
        to = []
    message_id = field(headers, 'message-id')
    m = re.search(r'<[^<>\s]+>', message_id or '')
    return {
        'partType': part.get_content_type(),
        'messageId': m.group(0) if m else None,
        'returnPath': field(headers, 'return-path'),
        'to': to,
    }


def read(raw):
    msg = email.message_from_bytes(raw, policy=POLICY)
    found = parts(msg)
    dsn = next((p for p in found if p.get_content_type() in DSN_TYPES), None)
    arf = next((p for p in found if p.get_content_type() == 'message/feedback-report'), None)
    original = next((p for p in found if p is not msg and p.get_content_type() in ORIGINAL_TYPES), None)
    root_type = msg.get_content_type()
    return {
        'kind': 'dsn' if dsn is not None else 'arf' if arf is not None else 'none',
        'reportType': (msg.get_param('report-type') or None) if root_type == 'multipart/report' else None,
        'dsn': read_dsn(dsn) if dsn is not None else None,
        'arf': read_arf(arf) if dsn is None and arf is not None else None,
        'original': read_original(original) if original is not None else None,
    }


def main(paths):
    results = {}
    for path in paths:
        with open(path, 'rb') as f:
            raw = f.read()
        try:
            results[path] = read(raw)
        except Exception as error:  # reported, compared as a disagreement
            results[path] = {'error': f'{type(error).__name__}: {error}'}
    json.dump(results, sys.stdout, ensure_ascii=False)


if __name__ == '__main__':
    main(sys.argv[1:])
