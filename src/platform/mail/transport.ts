import type { createTransport as CreateTransport } from 'nodemailer';
import { nodeRequire } from '../native';
import { LOOPBACK } from './smtp-url';
import type { MailMessage } from './messages';

/** What sends one message; rejects with a MailFailure. */
export interface MailSender {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** A failed delivery: `permanent` when retrying cannot help (a 5xx answer of the server); `status` the SMTP reply code, if any. */
export class MailFailure extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * SMTP through nodemailer. `smtps://` speaks TLS from the first byte (port 465 by default);
 * `smtp://` (port 587 by default) requires STARTTLS, except towards a loopback host (a local
 * relay or test server), where it is used when offered. Credentials come from the URL's
 * user:password and are never logged (nodemailer's own logger is off).
 */
export function createSmtpSender(smtpUrl: string, from: string): MailSender {
  const u = new URL(smtpUrl);
  const secure = u.protocol === 'smtps:';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  // Built at the first message: a process that never mails (a CLI command) never loads nodemailer.
  let transport: ReturnType<typeof CreateTransport> | undefined;
  const options = {
    host,
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    requireTLS: !secure && !LOOPBACK.has(u.hostname),
    auth: u.username ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    logger: false,
    debug: false,
  };
  return {
    async send(m) {
      try {
        transport ??= loadNodemailer()(options);
        await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text, html: m.html });
      } catch (e) {
        const err = e as { responseCode?: number; code?: string; message?: string };
        // RFC 5321 §4.2.1: 5yz is a permanent failure; 4yz and connection trouble are transient.
        const permanent = typeof err.responseCode === 'number' && err.responseCode >= 500;
        const what = err.responseCode ? `SMTP ${err.responseCode}` : (err.code ?? 'error');
        throw new MailFailure(`${what}: ${(err.message ?? '').slice(0, 200)}`, permanent, typeof err.responseCode === 'number' ? err.responseCode : undefined);
      }
    },
    close: () => transport?.close(),
  };
}

/**
 * nodemailer is loaded when a sender is built, not at start (as ajv, platform/http/schema.ts):
 * a process without SMTP never pays for it. The literal `require` lets esbuild bundle it.
 */
function loadNodemailer(): typeof CreateTransport {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred load, see above
  const mod = (typeof require === 'function' ? require('nodemailer') : nodeRequire()('nodemailer')) as { createTransport: typeof CreateTransport };
  return mod.createTransport;
}
