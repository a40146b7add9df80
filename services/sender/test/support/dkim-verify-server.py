#!/usr/bin/python3
"""dkim-verify.py for many messages in one process: importing dkimpy (dnspython, and the HTTP
stack it pulls in) takes a second or more of CPU, far more than verifying a message, so a test
that verifies hundreds of copies starts Python once rather than once a message.

Each message is verified by dkim-verify.py's own main() (the same code, the same verdicts), with
its NAME TXT records as argv and the message as stdin. Requests are JSON lines on stdin:

  {"id": ..., "records": [[NAME, TXT], ...], "message": BASE64}

and each answer is one JSON line on stdout: {"id": ..., "result": <dkim-verify.py's JSON>} or
{"id": ..., "error": "..."}. It prints {"ready": true} once dkimpy is imported, and exits at
the end of stdin. Needs the Debian package python3-dkim (dkimpy); run it with /usr/bin/python3.
"""

import base64
import contextlib
import importlib.util
import io
import json
import logging
import os
import sys

spec = importlib.util.spec_from_file_location('dkim_verify', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'dkim-verify.py'))
dkim_verify = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dkim_verify)


class Stdin:
    """What dkim-verify.py's main() reads the message from: sys.stdin.buffer."""

    def __init__(self, data):
        self.buffer = io.BytesIO(data)


def verify(records, message):
    argv = [part for pair in records for part in pair]
    out = io.StringIO()
    saved = sys.stdin
    sys.stdin = Stdin(message)
    try:
        with contextlib.redirect_stdout(out):
            code = dkim_verify.main(argv)
    finally:
        sys.stdin = saved
        # main() adds a handler to one logger per signature index; a fresh process starts without them.
        for name in list(logging.Logger.manager.loggerDict):
            if name.startswith('dkim-verify-'):
                logger = logging.getLogger(name)
                for handler in list(logger.handlers):
                    logger.removeHandler(handler)
    if code != 0:
        raise RuntimeError('dkim-verify.py exited %s' % code)
    return json.loads(out.getvalue())


def main():
    print(json.dumps({'ready': True}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            answer = {'id': request['id'], 'result': verify(request['records'], base64.b64decode(request['message']))}
        except Exception as e:  # reported to the test as that message's failure
            answer = {'id': request['id'], 'error': '%s: %s' % (type(e).__name__, e)}
        print(json.dumps(answer), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
