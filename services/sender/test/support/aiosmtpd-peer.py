"""An SMTP peer for the sender's tests, built on aiosmtpd (Debian's python3-aiosmtpd), an SMTP
server written independently of nodemailer.

Usage: aiosmtpd-peer.py PORT CONFIG_JSON

CONFIG_JSON (every key optional):
  eightBitMime   advertise 8BITMIME (default true)
  smtputf8       advertise and accept SMTPUTF8 (default false)
  size           data size limit in octets, enforced after DATA (default none)
  advertiseSize  advertise that limit as SIZE <n> in EHLO (default true)
  tls            {"cert": path, "key": path}: offer STARTTLS with this certificate
  replies        {"MAIL" | "RCPT" | "DATA": reply}: answer that command with `reply` (lines
                 separated by CRLF) instead of accepting it
  closeAfter     commands ("MAIL", "RCPT", "DATA") after whose reply the peer hangs up

Prints one JSON line on stdout per event, flushed: {"type": "ready"} once listening,
{"type": "mail", ...} for each MAIL FROM, and {"type": "message", ...} for each transaction
whose data was received, with the envelope, the MAIL options, the content exactly as received
(dot-stuffing undone) in base64, and whether the session was inside TLS. Stops on SIGTERM.
"""

import asyncio
import base64
import json
import signal
import ssl
import sys

from aiosmtpd.controller import Controller


def emit(event):
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def text(value):
    # aiosmtpd keeps addresses as str, undecodable bytes as surrogates: give the bytes back as UTF-8.
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


class Handler:
    def __init__(self, config):
        self.config = config
        self.replies = config.get("replies", {})
        self.close_after = set(config.get("closeAfter", []))

    def answer(self, server, command):
        reply = self.replies.get(command)
        if reply is not None and command in self.close_after:
            # The reply is written first; closing flushes it, then hangs up.
            asyncio.get_running_loop().call_soon(server.transport.close)
        return reply

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        session.host_name = hostname
        kept = []
        for line in responses:
            keyword = line[4:].split(" ")[0].upper()
            if keyword == "8BITMIME" and not self.config.get("eightBitMime", True):
                continue
            if keyword == "SIZE" and not self.config.get("advertiseSize", True):
                continue
            kept.append(line)
        return kept

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        emit({"type": "mail", "from": text(address), "options": mail_options, "tls": session.ssl is not None})
        reply = self.answer(server, "MAIL")
        if reply is not None:
            return reply
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 2.1.0 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        reply = self.answer(server, "RCPT")
        if reply is not None:
            return reply
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        emit({
            "type": "message",
            "from": text(envelope.mail_from),
            "to": [text(address) for address in envelope.rcpt_tos],
            "mailOptions": envelope.mail_options,
            "rcptOptions": envelope.rcpt_options,
            "content": base64.b64encode(envelope.original_content).decode("ascii"),
            "tls": session.ssl is not None,
        })
        reply = self.answer(server, "DATA")
        return reply if reply is not None else "250 2.0.0 Queued as AIOSMTPD"


def main():
    port = int(sys.argv[1])
    config = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    tls_context = None
    if config.get("tls"):
        tls_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls_context.load_cert_chain(config["tls"]["cert"], config["tls"]["key"])
    controller = Controller(
        Handler(config),
        hostname="127.0.0.1",
        port=port,
        server_hostname="mx.example.test",
        data_size_limit=config.get("size"),
        enable_SMTPUTF8=bool(config.get("smtputf8", False)),
        tls_context=tls_context,
    )
    controller.start()
    emit({"type": "ready"})
    stopped = asyncio.Event()
    loop = asyncio.new_event_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopped.set)
    try:
        loop.run_until_complete(stopped.wait())
    finally:
        controller.stop()
        loop.close()


if __name__ == "__main__":
    main()
