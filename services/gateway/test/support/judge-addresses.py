"""Judges address-field inputs with implementations independent of Mailroom's (and of nodemailer).

Reads a JSON list of strings on stdin and prints a JSON list, one verdict per input:
- "header": Python's email.headerregistry (RFC 5322 §3.4 address-list) reading the value as a
  To field: every group and mailbox it finds, with the defects it reports;
- "parseaddr": email.utils.parseaddr(strict=True), the older API, as (name, address);
- "validator": email_validator (RFC 5321/5322 addr-spec, IDNA 2008 domains), run on the one
  addr-spec headerregistry found (or the whole input when it found none), twice: with and
  without SMTPUTF8 allowed. Needs Debian's python3-email-validator; the rest is the standard
  library.
"""

import json
import sys
from email.headerregistry import HeaderRegistry
from email.utils import parseaddr

from email_validator import EmailNotValidError, validate_email

REGISTRY = HeaderRegistry()


def read_header(value):
    try:
        header = REGISTRY("To", value)
    except Exception as error:  # noqa: BLE001 - any failure to read is a verdict
        return {"error": f"{type(error).__name__}: {error}"}
    return {
        "groups": [
            {
                "name": group.display_name,
                "mailboxes": [
                    {"name": a.display_name, "address": a.addr_spec, "local": a.username, "domain": a.domain}
                    for a in group.addresses
                ],
            }
            for group in header.groups
        ],
        "defects": sorted(type(d).__name__ for d in header.defects),
    }


def validate(address, smtputf8):
    try:
        result = validate_email(address, check_deliverability=False, allow_smtputf8=smtputf8)
    except EmailNotValidError as error:
        return {"error": str(error)}
    except Exception as error:  # noqa: BLE001 - a crash is refusal too, but say so
        return {"error": f"crash {type(error).__name__}: {error}"}
    return {"email": result.email, "ascii": result.ascii_email, "local": result.local_part, "domain": result.ascii_domain}


def judge(value):
    header = read_header(value)
    mailboxes = [m for g in header.get("groups", []) for m in g["mailboxes"]]
    address = mailboxes[0]["address"] if len(mailboxes) == 1 and mailboxes[0]["address"] else value
    try:
        name, addr = parseaddr(value, strict=True)
    except Exception as error:  # noqa: BLE001
        name, addr = "", f"error {type(error).__name__}"
    return {
        "input": value,
        "header": header,
        "parseaddr": {"name": name, "address": addr},
        "validated": address,
        "validator": {"ascii": validate(address, False), "utf8": validate(address, True)},
    }


def main():
    inputs = json.load(sys.stdin)
    json.dump([judge(value) for value in inputs], sys.stdout, ensure_ascii=True)


if __name__ == "__main__":
    main()
