import { html, Raw } from '../pages/html';
import { layout, renderPage, type PageFrame, type PageModel } from '../pages/templates';

/** Form posts of the account page, relative to the issuer (issue 10). */
export const ACCOUNT_PATHS = {
  home: '/account',
  login: '/account/login',
  mfa: '/account/mfa',
  enrol: '/account/totp/enrol',
  confirm: '/account/totp/confirm',
  remove: '/account/totp/remove',
  codes: '/account/recovery-codes',
  password: '/account/password',
} as const;

export type AccountModel =
  | PageModel
  | { view: 'account'; csrf: string; email: string; enrolled: boolean; enrolledAt: string | null; recoveryCodesLeft: number; notice?: string; error?: string; errorAt?: 'mfa' | 'password' }
  | { view: 'account-enrol'; csrf: string; qrSvg: string; secret: string; uri: string; error?: string }
  | { view: 'account-codes'; title: string; lead: string; codes: string[] };

function csrfField(csrf: string): Raw {
  return html`<input type="hidden" name="csrf_token" value="${csrf}">`;
}

function alert(message: string | undefined, id = 'form-error'): Raw | string {
  return message ? html`<p class="error" id="${id}" role="alert">${message}</p>` : '';
}

function home(frame: PageFrame, m: Extract<AccountModel, { view: 'account' }>): string {
  const p = frame.issuerPath;
  const mfaError = m.errorAt === 'mfa' ? m.error : undefined;
  const passwordError = m.errorAt === 'password' ? m.error : undefined;
  const proof = html`<div class="field">
<label for="proof-ID">Current password or authenticator code</label>
<input id="proof-ID" name="proof" type="password" autocomplete="current-password" required>
</div>`;
  const proofFor = (id: string) => new Raw(proof.value.replace(/proof-ID/g, `proof-${id}`));
  return layout(
    frame,
    'Your account',
    html`<h1>Your account</h1>
<p class="lead">Signed in as <strong>${m.email}</strong></p>
${m.notice ? html`<p class="ok" role="status">${m.notice}</p>` : ''}
<section aria-labelledby="mfa-title">
<h2 id="mfa-title">Two-step verification</h2>
${alert(mfaError, 'mfa-error')}
${m.enrolled
  ? html`<p>On since ${m.enrolledAt?.slice(0, 10) ?? ''}, with an authenticator app. <span id="codes-left">${m.recoveryCodesLeft}</span> recovery codes left.</p>
<form method="post" action="${p + ACCOUNT_PATHS.codes}">
${csrfField(m.csrf)}
${proofFor('codes')}
<button class="secondary" type="submit">Get new recovery codes</button>
</form>
<form method="post" action="${p + ACCOUNT_PATHS.remove}">
${csrfField(m.csrf)}
${proofFor('remove')}
<button class="secondary" type="submit">Turn off two-step verification</button>
</form>`
  : html`<p>Off. Add an authenticator app to ask for a code after your password.</p>
<form method="post" action="${p + ACCOUNT_PATHS.enrol}">
${csrfField(m.csrf)}
<button class="primary" type="submit">Set up an authenticator app</button>
</form>`}
</section>
<section aria-labelledby="password-title">
<h2 id="password-title">Password</h2>
${alert(passwordError, 'password-error')}
<form method="post" action="${p + ACCOUNT_PATHS.password}">
${csrfField(m.csrf)}
<div class="field">
<label for="current_password">Current password</label>
<input id="current_password" name="current_password" type="password" autocomplete="current-password" required>
</div>
<div class="field">
<label for="new_password">New password</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength="8" required>
</div>
<div class="field check">
<input id="sign_out_others" name="sign_out_others" type="checkbox" value="yes" checked aria-describedby="sign_out_others-hint">
<label for="sign_out_others">Sign out other sessions</label>
<p class="hint" id="sign_out_others-hint">Other browsers and apps signed in to your account must sign in again with the new password.</p>
</div>
<button class="primary" type="submit">Change password</button>
</form>
</section>`,
  );
}

function enrol(frame: PageFrame, m: Extract<AccountModel, { view: 'account-enrol' }>): string {
  // uqr's SVG carries only presentation attributes (no script, style or link): safe under the CSP.
  const svg = new Raw(m.qrSvg.replace('<svg ', '<svg class="qr" role="img" aria-label="QR code of the authenticator key" '));
  return layout(
    frame,
    'Set up an authenticator app',
    html`<h1>Set up an authenticator app</h1>
<p class="lead">Scan this code with your authenticator app, then enter the 6-digit code it shows.</p>
${svg}
<p class="secret">Or enter this key by hand: <code id="totp-secret">${m.secret}</code></p>
${alert(m.error)}
<form method="post" action="${frame.issuerPath + ACCOUNT_PATHS.confirm}" novalidate>
${csrfField(m.csrf)}
<div class="field">
<label for="code">Code from the app</label>
<input id="code" name="code" type="text" inputmode="numeric" pattern="[0-9]*" maxlength="6" autocomplete="one-time-code" required autofocus>
</div>
<button class="primary" type="submit">Turn on</button>
</form>`,
  );
}

function codes(frame: PageFrame, m: Extract<AccountModel, { view: 'account-codes' }>): string {
  return layout(
    frame,
    m.title,
    html`<h1>${m.title}</h1>
<p class="lead">${m.lead}</p>
<ul class="codes" id="recovery-codes">
${m.codes.map((c) => html`<li><code>${c}</code></li>
`)}</ul>
<p><a href="${frame.issuerPath + ACCOUNT_PATHS.home}">Back to your account</a></p>`,
  );
}

export function renderAccountPage(frame: PageFrame, model: AccountModel): string {
  switch (model.view) {
    case 'account':
      return home(frame, model);
    case 'account-enrol':
      return enrol(frame, model);
    case 'account-codes':
      return codes(frame, model);
    default:
      return renderPage(frame, model);
  }
}
