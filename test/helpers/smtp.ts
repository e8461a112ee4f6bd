/**
 * A real SMTP server on loopback (the smtp-server package) that keeps every message it
 * accepts, so tests read the codes the service mailed, as a user reads their inbox.
 */
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface TestSmtp {
  url: string;
  port: number;
  messages: ReceivedMail[];
  /** Messages to `address` so far, oldest first. */
  to(address: string): ReceivedMail[];
  /** The six-digit code of the newest message to `address` (the line of the plain-text part that is only the code). */
  codeFor(address: string): string;
  /** The next `n` answers to DATA are this SMTP reply code (e.g. 451 transient, 550 permanent). */
  failNext(n: number, code: number): void;
  close(): Promise<void>;
}

export async function startSmtp(opts: { user?: string; password?: string } = {}): Promise<TestSmtp> {
  const messages: ReceivedMail[] = [];
  let failures = 0;
  let failCode = 451;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: opts.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !opts.user,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === opts.user && auth.password === opts.password) return cb(null, { user: auth.username });
      return cb(new Error('invalid credentials'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (failures > 0) {
          failures--;
          const err = new Error('refused by the test') as Error & { responseCode: number };
          err.responseCode = failCode;
          return cb(err);
        }
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  const auth = opts.user ? `${encodeURIComponent(opts.user)}:${encodeURIComponent(opts.password ?? '')}@` : '';
  const to = (address: string) => messages.filter((m) => m.to.includes(address.toLowerCase()));
  return {
    url: `smtp://${auth}127.0.0.1:${port}`,
    port,
    messages,
    to,
    codeFor(address) {
      const all = to(address);
      if (all.length === 0) throw new Error(`no mail to ${address}`);
      const m = /^(\d{6})\r?$/m.exec(all[all.length - 1].raw);
      if (!m) throw new Error(`the newest mail to ${address} carries no code`);
      return m[1];
    },
    failNext(n, code) {
      failures = n;
      failCode = code;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
