import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { startSmtp, type TestSmtp } from '../../../test/helpers/smtp';
import { ConfigError, loadConfig, redactedConfig } from '../config';
import { EMAIL, createNativeFixture, nativePost, openInteraction } from '../../../test/fixtures/native';
import { createLogger } from '../logger';
import { MAIL_RETRY } from './outbox';

let h: Harness | undefined;
let smtp: TestSmtp | undefined;
afterEach(async () => {
  await h?.close();
  await smtp?.close();
  h = smtp = undefined;
});

async function setUp(opts: { user?: string; password?: string } = {}) {
  smtp = await startSmtp(opts);
  h = await createHarness({ smtpUrl: smtp.url, mailFrom: 'auth@engage.test' });
  const f = await createNativeFixture(h);
  const it = await openInteraction(h.request, f);
  const res = await nativePost(h.request, f, '/email/request', { interaction_id: it.interactionId, email: EMAIL });
  expect(res.status).toBe(202);
  return { h, smtp };
}

const outbox = (hh: Harness) => hh.sql.all<{ status: string; attempts: number; message: string; nextAttemptAt: number; lastError: string | null }>(
  'SELECT status, attempts, message, next_attempt_at AS "nextAttemptAt", last_error AS "lastError" FROM mail_outbox',
);

describe('mail outbox', () => {
  it('holds the message sealed until sent, then deletes it (the code never rests in clear)', async () => {
    const { h, smtp } = await setUp();
    const [row] = await outbox(h);
    expect(row.status).toBe('PENDING');
    expect(row.message).toMatch(/^v1\./);
    expect(row.message).not.toContain(EMAIL);
    await h.services.mail.sendDue();
    const code = smtp.codeFor(EMAIL);
    expect(row.message).not.toContain(code);
    expect(await outbox(h)).toHaveLength(0);
    // Plain text and HTML, one message.
    expect(smtp.to(EMAIL)[0].raw).toMatch(/multipart\/alternative/);
    expect(smtp.to(EMAIL)[0].raw).toMatch(/text\/html/);
  });

  it('authenticates with the user and password of the URL', async () => {
    const { h, smtp } = await setUp({ user: 'mailer', password: 's3cret:/@' });
    await h.services.mail.sendDue();
    expect(smtp.codeFor(EMAIL)).toMatch(/^\d{6}$/);
  });

  it('retries a transient refusal with backoff, then delivers', async () => {
    const { h, smtp } = await setUp();
    smtp.failNext(2, 451);
    await h.services.mail.sendDue();
    let [row] = await outbox(h);
    expect(row).toMatchObject({ status: 'PENDING', attempts: 1 });
    expect(row.lastError).toMatch(/451/);
    expect(row.nextAttemptAt - h.clock.nowSeconds()).toBe(MAIL_RETRY.baseSeconds);
    // Not due yet: nothing is sent.
    await h.services.mail.sendDue();
    expect(smtp.messages).toHaveLength(0);
    h.clock.advance(MAIL_RETRY.baseSeconds);
    await h.services.mail.sendDue();
    [row] = await outbox(h);
    expect(row.attempts).toBe(2);
    expect(row.nextAttemptAt - h.clock.nowSeconds()).toBe(MAIL_RETRY.baseSeconds * 2);
    h.clock.advance(MAIL_RETRY.baseSeconds * 2);
    await h.services.mail.sendDue();
    expect(await outbox(h)).toHaveLength(0);
    expect(smtp.codeFor(EMAIL)).toMatch(/^\d{6}$/);
  });

  it('gives up at once on a permanent refusal and keeps the row for the operator', async () => {
    const { h, smtp } = await setUp();
    smtp.failNext(1, 550);
    await h.services.mail.sendDue();
    const [row] = await outbox(h);
    expect(row).toMatchObject({ status: 'FAILED', attempts: 1 });
    h.clock.advance(3600);
    await h.services.mail.sendDue();
    expect(smtp.messages).toHaveLength(0);
  });

  it('queues durably when the SMTP server is down: the 202 stands and the job delivers later', async () => {
    smtp = await startSmtp();
    const port = smtp.port;
    await smtp.close();
    h = await createHarness({ smtpUrl: `smtp://127.0.0.1:${port}` });
    const f = await createNativeFixture(h);
    const it = await openInteraction(h.request, f);
    expect((await nativePost(h.request, f, '/email/request', { interaction_id: it.interactionId, email: EMAIL })).status).toBe(202);
    await h.services.mail.sendDue();
    const [row] = await outbox(h);
    expect(row).toMatchObject({ status: 'PENDING', attempts: 1 });
  });
});

describe('SMTP failures in the log (issue 23 point 5)', () => {
  it('a transient refusal is a warn line, a permanent one an error line: mail id, provider, status; never the address', async () => {
    const lines: string[] = [];
    smtp = await startSmtp();
    h = await createHarness({ smtpUrl: smtp.url, mailFrom: 'auth@engage.test' }, { logger: createLogger({ level: 'info', format: 'json', write: (l) => lines.push(l) }) });
    const f = await createNativeFixture(h);
    const it = await openInteraction(h.request, f);
    expect((await nativePost(h.request, f, '/email/request', { interaction_id: it.interactionId, email: EMAIL })).status).toBe(202);
    smtp.failNext(1, 451);
    await h.services.mail.sendDue();
    h.clock.advance(MAIL_RETRY.baseSeconds);
    smtp.failNext(1, 550);
    await h.services.mail.sendDue();
    const mail = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => /^mail /.test(l.msg as string));
    expect(mail).toEqual([
      expect.objectContaining({ level: 'warn', msg: 'mail not sent; will retry', provider: 'smtp', status: 451, attempts: 1, purpose: expect.any(String), mailId: expect.any(String) }),
      expect.objectContaining({ level: 'error', msg: 'mail given up', provider: 'smtp', status: 550, attempts: 2 }),
    ]);
    expect(lines.join('\n')).not.toContain(EMAIL);
    expect(lines.join('\n').toLowerCase()).not.toContain(EMAIL.toLowerCase());
  });
});

describe('mail settings', () => {
  it('takes --smtp-url and --mail-from, and never shows the SMTP password', () => {
    const c = loadConfig({ flags: { smtpUrl: 'smtps://user:hunter2@mail.example.com:465', mailFrom: 'auth@example.com' } });
    expect(c.smtpUrl).toBe('smtps://user:hunter2@mail.example.com:465');
    expect(JSON.stringify(redactedConfig(c))).not.toContain('hunter2');
    expect(loadConfig({ env: { ENGAGE_SMTP_URL: 'smtp://mail.example.com' }, flags: { publicUrl: 'https://id.example.com' } }).mailFrom).toBe('no-reply@id.example.com');
  });

  it('refuses other schemes without repeating the value', () => {
    expect(() => loadConfig({ flags: { smtpUrl: 'http://user:hunter2@mail.example.com' } })).toThrow(ConfigError);
    try {
      loadConfig({ flags: { smtpUrl: 'http://user:hunter2@mail.example.com' } });
    } catch (e) {
      expect((e as Error).message).not.toContain('hunter2');
    }
    expect(() => loadConfig({ flags: { smtpUrl: 'smtp://mail.example.com', mailFrom: 'not an address' } })).toThrow(/mailFrom/);
  });
});
