import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createLogLinePrettifier, wantsPrettyLogs } from './logger';

const ROOT = join(__dirname, '../../..');

/** Runs a snippet that logs, with stdout a real terminal (util-linux `script` gives it a pty). */
function logOnTerminal(nodeEnv: string): string {
  const snippet = `require('./packages/core/src/logger.ts').createLogger({ service: 'x', nodeEnv: '${nodeEnv}' }).info({ a: 1 }, 'hello')`;
  const run = spawnSync('script', ['-qec', `node --import tsx -e "${snippet}"`, '/dev/null'], { cwd: ROOT, encoding: 'utf8' });
  return run.stdout;
}

describe('logs', () => {
  test('when stdout is a terminal outside production, then they are pretty; in production, on pipes and in tests, JSON', () => {
    expect(wantsPrettyLogs(true, 'development')).toBe(true);
    expect(wantsPrettyLogs(true, 'test')).toBe(true);
    expect(wantsPrettyLogs(true, 'production')).toBe(false);
    expect(wantsPrettyLogs(false, 'development')).toBe(false);
  });

  test('when a service logs on a terminal in development, then the line is readable, not JSON', () => {
    const out = logOnTerminal('development');
    expect(out).toMatch(/INFO.*hello/);
    expect(out).not.toContain('"level"');
  });

  test('when a service logs on a terminal in production, then the line is JSON', () => {
    const line = logOnTerminal('production').trim();
    expect(JSON.parse(line)).toMatchObject({ level: 30, msg: 'hello', a: 1, service: 'x' });
  });

  test('when pnpm start relays a JSON line, then it renders one readable line; other lines pass unchanged', () => {
    const prettify = createLogLinePrettifier({ colour: false });
    const line = JSON.stringify({ level: 40, time: 0, service: 'gateway', name: 'gateway', msg: 'redis connection error', retries: 3 });
    const shown = prettify(line);
    expect(shown).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: redis connection error {"retries":3}$/);
    expect(prettify('not a log line')).toBe('not a log line');
  });
});
