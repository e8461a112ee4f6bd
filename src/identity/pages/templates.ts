import { html, type Raw } from './html';
import { HOSTED_PATHS, renderHostedPage, type HostedPageModel } from './hosted-templates';
import { attr, hidden, layout } from './layout';

export { hidden, layout };

export type { PageFrame } from './layout';
import type { PageFrame } from './layout';

export interface ScopeLine {
  what: string;
  detail?: string;
}

export type PageModel =
  | {
      view: 'login'; interactionId: string; csrf: string; clientName: string; email?: string; error?: string; action?: string; federations?: { source: string; label: string }[];
      /** Hosted recovery and registration (issue 23 point 6): links shown only when offered; a notice after a recovery. */
      offers?: { recovery: boolean; registration: boolean }; notice?: string;
    }
  | { view: 'consent'; interactionId: string; csrf: string; clientName: string; email: string; scopes: ScopeLine[] }
  | { view: 'select'; interactionId: string; csrf: string; clientName: string; accounts: { userId: string; email: string }[] }
  | { view: 'mfa'; interactionId: string; csrf: string; clientName: string; method: 'totp' | 'recovery'; error?: string; action?: string }
  | { view: 'recovery-code'; interactionId: string; csrf: string; clientName: string; code: string }
  | { view: 'error'; title: string; message: string }
  | HostedPageModel;

/** Form posts of the flow, relative to the issuer. */
export const FORM_PATHS = {
  login: '/oauth2/authorize/login',
  consent: '/oauth2/authorize/consent',
  select: '/oauth2/authorize/select',
  mfa: '/oauth2/authorize/mfa',
  continue: '/oauth2/authorize/continue',
  federation: '/oauth2/authorize/federation',
} as const;

function loginPage(frame: PageFrame, m: Extract<PageModel, { view: 'login' }>): string {
  const described = m.error ? 'form-error' : undefined;
  const invalid = m.error ? 'true' : undefined;
  return layout(
    frame,
    `Sign in – ${m.clientName}`,
    html`<h1>Sign in</h1>
<p class="lead">to continue to <strong>${m.clientName}</strong></p>
${m.notice ? html`<p class="ok" role="status">${m.notice}</p>` : ''}
${m.error ? html`<p class="error" id="form-error" role="alert">${m.error}</p>` : ''}
<form method="post" action="${frame.issuerPath + (m.action ?? FORM_PATHS.login)}" novalidate>
${hidden(m.interactionId, m.csrf)}
<div class="field">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" spellcheck="false" autocapitalize="none" required value="${m.email ?? ''}"${attr('aria-describedby', described)}${attr('aria-invalid', invalid)}${m.email ? '' : html` autofocus`}>
</div>
<div class="field">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${attr('aria-describedby', described)}${attr('aria-invalid', invalid)}${m.email ? html` autofocus` : ''}>
</div>
<button class="primary" type="submit">Sign in</button>
</form>${accountLinks(frame, m)}${federationButtons(frame, m)}`,
  );
}

/** "Forgot password?" and, on a SELF_SERVICE tenant, "Create account" (issue 23 point 6). */
function accountLinks(frame: PageFrame, m: Extract<PageModel, { view: 'login' }>): Raw | string {
  if (!m.offers?.recovery && !m.offers?.registration) return '';
  const query = `?interaction_id=${encodeURIComponent(m.interactionId)}`;
  return html`
<p class="note">${m.offers.recovery ? html`<a href="${frame.issuerPath + HOSTED_PATHS.recover + query}">Forgot password?</a>` : ''}${m.offers.recovery && m.offers.registration ? ' · ' : ''}${m.offers.registration ? html`<a href="${frame.issuerPath + HOSTED_PATHS.register + query}">Create account</a>` : ''}</p>`;
}

/** "Sign in with <source>": one form per federated source tenant (identity/federations). */
function federationButtons(frame: PageFrame, m: Extract<PageModel, { view: 'login' }>): Raw | string {
  if (!m.federations?.length) return '';
  return html`
<p class="note" id="federation-title">Or use an account of</p>
${m.federations.map((f) => html`<form method="post" action="${frame.issuerPath + FORM_PATHS.federation}">
${hidden(m.interactionId, m.csrf)}
<button class="secondary" type="submit" name="source" value="${f.source}">Sign in with ${f.label}</button>
</form>
`)}`;
}

function consentPage(frame: PageFrame, m: Extract<PageModel, { view: 'consent' }>): string {
  return layout(
    frame,
    `Allow access – ${m.clientName}`,
    html`<h1>Allow ${m.clientName} to access your account?</h1>
<p class="lead">Signed in as <strong>${m.email}</strong></p>
<form method="post" action="${frame.issuerPath + FORM_PATHS.consent}">
${hidden(m.interactionId, m.csrf)}
<p id="scopes-title"><strong>${m.clientName}</strong> will be able to:</p>
<ul class="scopes" aria-labelledby="scopes-title">
${m.scopes.map((s) => html`<li><span class="what">${s.what}</span>${s.detail ? html`<span class="detail">${s.detail}</span>` : ''}</li>
`)}</ul>
<div class="actions">
<button class="secondary" type="submit" name="decision" value="deny">Cancel</button>
<button class="primary" type="submit" name="decision" value="allow">Allow</button>
</div>
<p class="note">Your choice is remembered: this application will not ask again for these permissions.</p>
</form>`,
  );
}

function selectPage(frame: PageFrame, m: Extract<PageModel, { view: 'select' }>): string {
  return layout(
    frame,
    `Choose an account – ${m.clientName}`,
    html`<h1>Choose an account</h1>
<p class="lead">to continue to <strong>${m.clientName}</strong></p>
<form method="post" action="${frame.issuerPath + FORM_PATHS.select}">
${hidden(m.interactionId, m.csrf)}
<ul class="accounts">
${m.accounts.map((a) => html`<li><button class="account" type="submit" name="account" value="${a.userId}"><span class="avatar" aria-hidden="true">${a.email.slice(0, 1).toUpperCase()}</span><span>${a.email}</span></button></li>
`)}</ul>
<button class="secondary" type="submit" name="account" value="">Use another account</button>
</form>`,
  );
}

/** The second step of the sign-in (issue 10): an authenticator code, or a recovery code. */
function mfaPage(frame: PageFrame, m: Extract<PageModel, { view: 'mfa' }>): string {
  const described = m.error ? 'form-error' : undefined;
  const totp = m.method === 'totp';
  return layout(
    frame,
    `Two-step verification – ${m.clientName}`,
    html`<h1>Two-step verification</h1>
<p class="lead">${totp ? 'Enter the 6-digit code from your authenticator app.' : 'Enter one of your recovery codes.'}</p>
${m.error ? html`<p class="error" id="form-error" role="alert">${m.error}</p>` : ''}
<form method="post" action="${frame.issuerPath + (m.action ?? FORM_PATHS.mfa)}" novalidate>
${hidden(m.interactionId, m.csrf)}
<input type="hidden" name="method" value="${m.method}">
<div class="field">
<label for="code">${totp ? 'Authentication code' : 'Recovery code'}</label>
<input id="code" name="code" type="text" ${totp ? html`inputmode="numeric" pattern="[0-9]*" maxlength="6"` : html`maxlength="20"`} autocomplete="one-time-code" spellcheck="false" autocapitalize="none" required autofocus${attr('aria-describedby', described)}${attr('aria-invalid', m.error ? 'true' : undefined)}>
</div>
<button class="primary" type="submit">Verify</button>
</form>
<form method="post" action="${frame.issuerPath + (m.action ?? FORM_PATHS.mfa)}">
${hidden(m.interactionId, m.csrf)}
<input type="hidden" name="method" value="${totp ? 'recovery' : 'totp'}">
<button class="secondary" type="submit">${totp ? 'Use a recovery code instead' : 'Use your authenticator app instead'}</button>
</form>`,
  );
}

/** A recovery code was used up: its replacement is shown once, before going on. */
function recoveryCodePage(frame: PageFrame, m: Extract<PageModel, { view: 'recovery-code' }>): string {
  return layout(
    frame,
    `New recovery code – ${m.clientName}`,
    html`<h1>Save your new recovery code</h1>
<p class="lead">The recovery code you used no longer works. This one replaces it; it is shown only now.</p>
<p class="code" id="replacement-code"><code>${m.code}</code></p>
<form method="post" action="${frame.issuerPath + FORM_PATHS.continue}">
${hidden(m.interactionId, m.csrf)}
<button class="primary" type="submit">I saved it, continue</button>
</form>`,
  );
}

function errorPage(frame: PageFrame, m: Extract<PageModel, { view: 'error' }>): string {
  return layout(
    frame,
    m.title,
    html`<h1>${m.title}</h1>
<p class="lead" role="alert">${m.message}</p>`,
  );
}

export function renderPage(frame: PageFrame, model: PageModel): string {
  switch (model.view) {
    case 'login':
      return loginPage(frame, model);
    case 'consent':
      return consentPage(frame, model);
    case 'select':
      return selectPage(frame, model);
    case 'mfa':
      return mfaPage(frame, model);
    case 'recovery-code':
      return recoveryCodePage(frame, model);
    case 'error':
      return errorPage(frame, model);
    default:
      return renderHostedPage(frame, model);
  }
}
