import { until } from '../../../test/support/until';
import { expectCode, message, RawSmtp, seedProject, startTestMx, storedRows, type TestMx } from './smtp-support';

// One MX process may hold 100 KiB of messages at once (INBOUND_MAX_BUFFERED_BYTES), each up to
// 64 KiB (INBOUND_MAX_MESSAGE_BYTES): a message of 60 KiB in DATA leaves room for 40 KiB more.
const KIB = 1024;
const part = (kib: number) => `${'x'.repeat(1022)}\r\n`.repeat(kib);

describe('the MX under a message memory bound', () => {
  let t: TestMx;

  const buffered = async () => {
    const metric = await t.mx.registry.getSingleMetric('mailroom_inbound_smtp_buffered_bytes')?.get();
    return metric?.values[0]?.value ?? Number.NaN;
  };
  const refusedForMemory = async () => {
    const metric = await t.mx.registry.getSingleMetric('mailroom_inbound_smtp_messages_refused_total')?.get();
    return metric?.values.find((v) => v.labels.reason === 'memory')?.value ?? Number.NaN;
  };
  /** A client in the middle of DATA with `kib` KiB sent, once the MX holds them. */
  const holding = async (kib: number) => {
    const smtp = await RawSmtp.open(t.mx.port);
    await smtp.startMessage('ann@example.test', ['support@acme.test']);
    const before = await buffered();
    smtp.write(message('Held', part(kib)).subarray(0, kib * KIB));
    // smtp-server keeps the last few bytes back until it knows they do not end the data.
    await until(async () => (await buffered()) >= before + kib * KIB - 8, 5_000, 'the held message in memory');
    return smtp;
  };

  beforeAll(async () => {
    t = await startTestMx({
      label: 'smtpmemory',
      env: { INBOUND_MAX_MESSAGE_BYTES: String(64 * KIB), INBOUND_MAX_BUFFERED_BYTES: String(100 * KIB) },
    });
    await seedProject(t.pool, ['support@acme.test']);
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    await t.pool.query({ text: 'DELETE FROM received_emails' });
    await until(async () => (await buffered()) === 0, 5_000, 'no message held');
  });

  test('when a message would pass the memory bound, then it gets 452 4.3.1 after its final dot, nothing of it is stored, and it is taken once memory is free again', async () => {
    const held = await holding(60);
    const refusedBefore = await refusedForMemory();

    const second = await RawSmtp.open(t.mx.port);
    await second.startMessage('bob@example.test', ['support@acme.test']);
    second.write(message('Second', part(50)));
    expect(await second.command('.')).toMatch(/^452 4\.3\.1 /);
    expect(await refusedForMemory()).toBe(refusedBefore + 1);
    // Only the held message is in memory: the refused one's bytes were given back.
    expect(await buffered()).toBeLessThan(64 * KIB);

    held.write(`${part(1)}.\r\n`);
    expectCode(await held.reply(), 250);
    await until(async () => (await buffered()) === 0, 5_000, 'memory released after the commit');

    // The sender tries again, on the same connection.
    expectCode(await second.command('MAIL FROM:<bob@example.test>'), 250);
    expectCode(await second.command('RCPT TO:<support@acme.test>'), 250);
    expectCode(await second.command('DATA'), 354);
    second.write(message('Second', part(50)));
    expectCode(await second.command('.'), 250);
    held.end();
    second.end();
    expect((await storedRows(t.pool)).map((row) => row.raw.toString('latin1').match(/^Subject: (\w+)/m)?.[1]).sort()).toEqual(['Held', 'Second']);
  });

  test('when MAIL FROM announces a SIZE the memory cannot hold now, then 452 4.3.1 at once; a SIZE that fits is taken', async () => {
    const held = await holding(60);
    const smtp = await RawSmtp.open(t.mx.port);
    await smtp.reply();
    await smtp.command('EHLO client.example.test');
    expect(await smtp.command(`MAIL FROM:<ann@example.test> SIZE=${50 * KIB}`)).toMatch(/^452 4\.3\.1 /);
    expectCode(await smtp.command(`MAIL FROM:<ann@example.test> SIZE=${30 * KIB}`), 250);
    expectCode(await smtp.command('RCPT TO:<support@acme.test>'), 250);
    expectCode(await smtp.command('DATA'), 354);
    smtp.write(message('Fits', part(29)));
    expectCode(await smtp.command('.'), 250);
    smtp.end();
    held.end();
  });

  test('when clients leave in the middle of DATA, then the memory their messages held is free again', async () => {
    const first = await holding(60);
    first.end();
    await until(async () => (await buffered()) === 0, 5_000, 'memory released after the disconnect');
    const second = await holding(60);
    second.end();
    await until(async () => (await buffered()) === 0, 5_000, 'memory released after the second disconnect');
    expect(await storedRows(t.pool)).toHaveLength(0);
  });
});
