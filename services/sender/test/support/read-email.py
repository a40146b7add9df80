#!/usr/bin/python3
"""Reads one message as a receiving mail client would, with Python's standard-library `email`
package (policy.default), an implementation independent of nodemailer and mailparser (which
share an author), and prints what the reader sees as JSON.

Usage: read-email.py < message

The message (raw RFC 5322 bytes, as received) is read on stdin. Prints one JSON object:

  {"from"|"to"|"cc"|"replyTo": [{"name", "address", "legacy": {"quoted", "decoded"}}...] or
                               null when the header is absent,
   "subject": str or null,
   "headers": {lower-case name: [decoded value, ...]} for every field,
   "text", "html": the first text/plain and text/html body that is not an attachment, decoded
                   to str (null when there is none),
   "attachments": [{"filename", "filenameParam", "contentType", "contentId", "disposition",
                    "size", "sha256"}],
   "defects": ["Part: DefectName", ...]}

Display names and addresses come from the header's structured parse (RFC 5322 / RFC 2047 /
RFC 6532); "legacy" is the older API's reading of the same name, for the cases where the two
disagree (see the allow-list of round-trip-independent.test.ts); attachment names from get_filename() (RFC 2231 first, then name=). Uses only the
standard library; run it with /usr/bin/python3.
"""

import email
import email.header
import email.policy
import email.utils
import hashlib
import json
import sys


def mailboxes(message, legacy, name):
    header = message[name]
    if header is None:
        return None
    # The same field as the older API reads it (email.utils.getaddresses on the raw value): the
    # display name unquoted but not decoded ("quoted"), and that decoded with
    # email.header.decode_header ("decoded"), which applies RFC 2047 section 6.2 to the
    # white space between adjacent encoded-words.
    raw = [(n, a) for (n, a) in email.utils.getaddresses(legacy.get_all(name, [])) if a]
    out = []
    for index, address in enumerate(header.addresses):
        local, domain = address.username, address.domain
        quoted = raw[index][0] if index < len(raw) else None
        decoded = str(email.header.make_header(email.header.decode_header(quoted))) if quoted is not None else None
        out.append({
            'name': address.display_name,
            'address': '%s@%s' % (local, domain) if domain else local,
            'legacy': {'quoted': quoted, 'decoded': decoded},
        })
    return out


def text_of(part):
    # get_content() decodes the transfer encoding and the charset, as a client shows the part.
    return part.get_content()


def main():
    raw = sys.stdin.buffer.read()
    message = email.message_from_bytes(raw, policy=email.policy.default)
    legacy = email.message_from_bytes(raw, policy=email.policy.compat32)

    headers = {}
    for name, value in message.items():
        headers.setdefault(name.lower(), []).append(str(value))

    text = html = None
    attachments = []
    defects = ['message: %s' % type(d).__name__ for d in message.defects]
    for part in message.walk():
        defects.extend('%s: %s' % (part.get_content_type(), type(d).__name__) for d in part.defects if part is not message)
        if part.is_multipart():
            continue
        content_type = part.get_content_type()
        disposition = part.get_content_disposition()
        filename = part.get_filename()
        is_body = disposition != 'attachment' and filename is None and content_type in ('text/plain', 'text/html')
        if is_body and content_type == 'text/plain' and text is None:
            text = text_of(part)
            continue
        if is_body and content_type == 'text/html' and html is None:
            html = text_of(part)
            continue
        content = part.get_payload(decode=True) or b''
        if content_type.startswith('message/'):
            # A message/* part is a parsed message to the library; its bytes are what the sender wrote.
            inner = part.get_payload()
            content = inner[0].as_bytes(policy=email.policy.SMTP) if isinstance(inner, list) and inner else content
        content_id = part['Content-ID']
        # The filename parameter as written (RFC 2231 sections joined and decoded), which
        # get_filename() also strips of surrounding white space.
        param = part.get_param('filename', header='content-disposition')
        attachments.append({
            'filename': filename,
            'filenameParam': email.utils.collapse_rfc2231_value(param) if param is not None else None,
            'contentType': content_type,
            'contentId': str(content_id) if content_id is not None else None,
            'disposition': disposition,
            'size': len(content),
            'sha256': hashlib.sha256(content).hexdigest(),
        })

    print(json.dumps({
        'from': mailboxes(message, legacy, 'From'),
        'to': mailboxes(message, legacy, 'To'),
        'cc': mailboxes(message, legacy, 'Cc'),
        'replyTo': mailboxes(message, legacy, 'Reply-To'),
        'subject': str(message['Subject']) if message['Subject'] is not None else None,
        'headers': headers,
        'text': text,
        'html': html,
        'attachments': attachments,
        'defects': defects,
    }))
    return 0


if __name__ == '__main__':
    sys.exit(main())
