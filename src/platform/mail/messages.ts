/**
 * The messages the service sends, one per purpose, each as plain text and HTML (RFC 2046
 * multipart/alternative: mail clients pick the richest part they can show). Codes appear only
 * here and in the sealed outbox row, never in logs.
 */
export type MailPurpose = 'email-code' | 'registration-code' | 'registration-taken' | 'recovery-code';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface MailContext {
  /** Who sends it, as people know it (the tenant's slug). */
  tenantName: string;
  /** The six-digit code, for the purposes that carry one. */
  code?: string;
  /** How long the code stays valid, in minutes. */
  validMinutes?: number;
  /** A page where the code is entered (the hosted recovery page), for the purposes that carry one. */
  link?: string;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function html(title: string, paragraphs: string[], code?: string): string {
  const body = paragraphs.map((p) => `<p style="margin:0 0 16px">${escapeHtml(p)}</p>`).join('');
  const codeBlock = code ? `<p style="font-size:28px;font-weight:bold;letter-spacing:6px;margin:0 0 16px">${escapeHtml(code)}</p>` : '';
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
    `<body style="font-family:system-ui,sans-serif;color:#222;max-width:520px;margin:24px auto;padding:0 16px">` +
    `<h1 style="font-size:20px">${escapeHtml(title)}</h1>${codeBlock}${body}</body></html>`;
}

function text(paragraphs: string[], code?: string): string {
  return [...(code ? [code, ''] : []), ...paragraphs.flatMap((p) => [p, ''])].join('\n');
}

export function composeMail(purpose: MailPurpose, to: string, ctx: MailContext): MailMessage {
  const who = ctx.tenantName;
  const minutes = `It is valid for ${ctx.validMinutes ?? 10} minutes.`;
  const ignore = 'If you did not ask for it, you can ignore this message.';
  let subject: string;
  let lines: string[];
  let code: string | undefined;
  switch (purpose) {
    case 'email-code':
      subject = `Your ${who} sign-in code`;
      code = ctx.code;
      lines = [`Enter this code in the app to sign in to ${who}. ${minutes}`, ignore];
      break;
    case 'registration-code':
      subject = `Confirm your email address for ${who}`;
      code = ctx.code;
      lines = [`Enter this code in the app or on the sign-in page to finish creating your ${who} account. ${minutes}`, ignore];
      break;
    case 'registration-taken':
      subject = `Someone tried to create a ${who} account with your address`;
      lines = [
        `Someone asked to create a new ${who} account with this email address, but you already have one.`,
        'You do not need to do anything. If you forgot your password, use "Forgot password" in the app to choose a new one.',
      ];
      break;
    case 'recovery-code':
      subject = `Reset your ${who} password`;
      code = ctx.code;
      lines = [`Enter this code in the app or on the sign-in page to choose a new password for your ${who} account. ${minutes}`, ignore];
      break;
  }
  // The hosted page where the code can be entered (issue 23 point 6): plain text, so any mail client shows it.
  if (ctx.link && code) lines.splice(1, 0, `You can also enter it on this page: ${ctx.link}`);
  return { to, subject, text: text(lines, code), html: html(subject, lines, code) };
}
