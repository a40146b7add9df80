/**
 * The receive baseline, run as its own process: a bare smtp-server that accepts every
 * recipient and discards every message after reading it, with the MX's protocol settings
 * (no AUTH, no STARTTLS, SIZE, no reverse lookup). Env: PORT.
 */
import { SMTPServer } from 'smtp-server';

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) throw new Error('PORT is not set');

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  hideSTARTTLS: true,
  size: 26_214_400,
  disableReverseLookup: true,
  hideENHANCEDSTATUSCODES: false,
  logger: false,
  maxClients: 1_000,
  onData(stream, _session, callback) {
    stream.on('data', () => undefined);
    stream.on('end', () => callback(null, 'Ok: discarded'));
  },
});
server.on('error', () => undefined);
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
