#!/usr/bin/env python3
"""What Python's standard-library email package makes of raw messages, as JSON.

An independent parser for parse-differential.test.ts (mailparser, libmime and mailsplit share an
author). Stdlib only. Usage: parse-email.py FILE... prints one JSON object {FILE: result}; a
result is {"error": "..."} when Python raises on the message.

Every message is read with email.message_from_bytes(raw, policy=email.policy.default). What this
script adds to what that API returns, and nothing more:
- Python keeps a header's 8-bit bytes as lone surrogates (surrogateescape); they are given back as
  the UTF-8 they are (RFC 6532), or U+FFFD where they are not UTF-8.
- Bodies: get_body(preferencelist=('plain',)) and ('html',), as a mail client chooses them;
  get_content() decodes them. A charset Python does not know is reported in `charsetErrors` and
  the bytes are read as UTF-8 with U+FFFD (get_content would raise). text/plain; format=flowed
  is unwrapped per RFC 3676 section 4 by flowed() below: the stdlib has no decoder for it, and a
  client shows it unwrapped.
- Attachments: every leaf of the MIME tree in order (a message/* part is a leaf, never opened)
  but the two parts get_body chose: iter_attachments() made recursive (it only looks at the top
  level's children). Bytes are get_payload(decode=True); a message/* part, which Python parses
  into objects, is generated back with the original folding (compat32 generator, CRLF, no
  re-wrapping) and also given whole, base64, as `regenerated`: the generator writes its own line
  ends (CRLF) and a final blank line, so only its text up to those can be compared.
"""

import base64
import datetime
import email
import email.generator
import email.policy
import hashlib
import io
import json
import re
import sys

_SURROGATES = re.compile('[\udc80-\udcff]+')


def raw_utf8(value):
    """A str from Python with its surrogateescaped raw bytes read as UTF-8 (RFC 6532), U+FFFD where they are not."""
    if value is None:
        return None
    value = str(value)
    if not _SURROGATES.search(value):
        return value
    return value.encode('utf-8', 'surrogateescape').decode('utf-8', 'replace')


def addresses(msg, name):
    """The mailboxes of the first such field, groups flattened (Address objects of .addresses)."""
    header = msg[name]
    if header is None:
        return []
    return [{'address': raw_utf8(a.addr_spec), 'name': raw_utf8(a.display_name) or None} for a in header.addresses]


def iso_date(msg):
    header = msg['date']
    if header is None:
        return None
    dt = getattr(header, 'datetime', None)
    if dt is None:
        return None
    if dt.tzinfo is None:  # "-0000" or no zone: UTC, RFC 5322 section 3.3
        return dt.strftime('%Y-%m-%dT%H:%M:%S.000Z')
    return dt.astimezone(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.000Z')


def flowed(body, delsp):
    """RFC 3676 section 4.2: unwrap format=flowed text (the stdlib has no such decoder)."""
    lines = body.split('\n')
    out = []
    current = None  # (depth, text) of a paragraph being joined
    for line in lines:
        depth = len(line) - len(line.lstrip('>'))
        content = line[depth:]
        if content.startswith(' '):
            content = content[1:]  # space-stuffing, section 4.4
        soft = content.endswith(' ') and content != '-- '
        if current is not None and current[0] == depth:
            current = (depth, current[1] + content)
        else:
            if current is not None:
                out.append(current)
            current = (depth, content)
        if soft:
            if delsp:
                current = (current[0], current[1][:-1])
            continue
        out.append(current)
        current = None
    if current is not None:
        out.append(current)
    return '\n'.join(('>' * d + (' ' if d and t else '') + t) if d else t for d, t in out)


def body(part, subtype, charset_errors):
    if part is None:
        return None
    try:
        content = part.get_content()
    except LookupError as e:
        charset_errors.append(f'{subtype}: {e}')
        content = (part.get_payload(decode=True) or b'').decode('utf-8', 'replace')
    content = content.replace('\r\n', '\n')
    if subtype == 'plain' and (part.get_param('format') or '').lower() == 'flowed':
        content = flowed(content, (part.get_param('delsp') or '').lower() == 'yes')
    return content


def leaves(part):
    if part.is_multipart() and part.get_content_maintype() == 'multipart':
        for sub in part.iter_parts():
            yield from leaves(sub)
    else:
        yield part


def message_bytes(part):
    out = io.BytesIO()
    policy = email.policy.compat32.clone(linesep='\r\n', max_line_length=0)
    gen = email.generator.BytesGenerator(out, mangle_from_=False, policy=policy)
    for sub in part.get_payload():
        gen.flatten(sub, linesep='\r\n')
    return out.getvalue()


def is_regenerated(part):
    return part.get_content_maintype() == 'message' and isinstance(part.get_payload(), list)


def payload_bytes(part):
    if is_regenerated(part):
        return message_bytes(part)
    data = part.get_payload(decode=True)
    return data if data is not None else b''


def attachments(msg, bodies):
    out = []
    for part in leaves(msg):
        if any(part is b for b in bodies):
            continue
        ctype = part.get_content_type()
        data = payload_bytes(part)
        cid = part['content-id']
        cid = None if cid is None else re.sub(r'^<|>$', '', str(cid).strip()).strip() or None
        entry = {
            'filename': raw_utf8(part.get_filename()),
            'contentType': ctype,
            'contentId': cid,
            'disposition': part.get_content_disposition(),
            'size': len(data),
            'sha256': hashlib.sha256(data).hexdigest(),
        }
        if is_regenerated(part):
            entry['regenerated'] = base64.b64encode(data).decode('ascii')
        out.append(entry)
    return out


def parse(raw):
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    subject = msg['subject']
    message_id = msg['message-id']
    charset_errors = []
    plain_part = msg.get_body(preferencelist=('plain',))
    html_part = msg.get_body(preferencelist=('html',))
    plain = body(plain_part, 'plain', charset_errors)
    html = body(html_part, 'html', charset_errors)
    sender = addresses(msg, 'from')
    return {
        'subject': None if subject is None else raw_utf8(subject),
        'from': sender[0] if sender else None,
        'to': addresses(msg, 'to'),
        'cc': addresses(msg, 'cc'),
        'replyTo': addresses(msg, 'reply-to'),
        'messageId': None if message_id is None else (raw_utf8(message_id).strip() or None),
        'date': iso_date(msg),
        'text': plain,
        'html': html,
        'attachments': attachments(msg, [plain_part, html_part]),
        'charsetErrors': charset_errors,
    }


def main(paths):
    results = {}
    for path in paths:
        with open(path, 'rb') as f:
            raw = f.read()
        try:
            results[path] = parse(raw)
        except Exception as e:  # noqa: BLE001 - a crash is a result too
            results[path] = {'error': f'{type(e).__name__}: {e}'}
    json.dump(results, sys.stdout, ensure_ascii=False)


if __name__ == '__main__':
    main(sys.argv[1:])
