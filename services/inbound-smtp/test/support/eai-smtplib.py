#!/usr/bin/env python3
"""Sends one message with Python's smtplib (an SMTP client independent of nodemailer) and prints
what the server answered, as JSON: {"refused": {rcpt: [code, text]}, "error": null | text}.

Usage: eai-smtplib.py PORT; stdin is JSON {"from": ..., "to": [...], "message": base64, "options": [...]},
`options` the MAIL FROM parameters (SMTPUTF8, BODY=8BITMIME). smtplib writes the addresses as
UTF-8 when SMTPUTF8 is among them, and refuses to send them otherwise.
"""
import base64
import json
import smtplib
import sys


def main():
    request = json.load(sys.stdin)
    out = {'refused': {}, 'error': None, 'noop': None}
    with smtplib.SMTP('127.0.0.1', int(sys.argv[1]), local_hostname='client.python.test') as s:
        try:
            refused = s.sendmail(request['from'], request['to'], base64.b64decode(request['message']), mail_options=request.get('options', []))
            out['refused'] = {k: [v[0], v[1].decode('utf-8', 'replace')] for k, v in refused.items()}
        except smtplib.SMTPRecipientsRefused as e:
            out['refused'] = {k: [v[0], v[1].decode('utf-8', 'replace')] for k, v in e.recipients.items()}
            out['error'] = 'all recipients refused'
        except smtplib.SMTPResponseException as e:
            out['error'] = '%d %s' % (e.smtp_code, e.smtp_error.decode('utf-8', 'replace'))
        out['noop'] = s.noop()[0]
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == '__main__':
    main()
