/**
 * The accept baseline, run as its own process: a bare express 5 app that parses the same JSON
 * body as the gateway (40 MB limit) and answers a random id. Env: PORT, EXPRESS_PATH.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Server } from 'node:http';

interface Res {
  json(body: unknown): void;
}
type Handler = (req: unknown, res: Res, next: () => void) => void;
interface App {
  use(handler: Handler): void;
  post(path: string, handler: (req: { body: unknown }, res: Res) => void): void;
  listen(port: number, host: string, callback: () => void): Server;
}
interface Express {
  (): App;
  json(options: { limit: string }): Handler;
}

const expressPath = process.env.EXPRESS_PATH;
if (!expressPath) throw new Error('EXPRESS_PATH is not set');
const express = createRequire(__filename)(expressPath) as Express;

const app = express();
app.use(express.json({ limit: '40mb' }));
app.post('/emails', (_req, res) => {
  res.json({ id: randomUUID() });
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => {});
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
