import { html, type Raw } from './html';
import { attr, layout, type PageFrame } from './layout';

/**
 * Registration and password recovery pages of the hosted sign-in (issue 23 point 6). Every form
 * posts with the session's CSRF token; the interaction id is carried when the page belongs to an
 * authorization request (a recovery opened from a mail has none).
 */
export type HostedPageModel =
  | { view: 'recover'; csrf: string; interactionId?: string; email?: string; error?: string }
  | { view: 'recover-code'; csrf: string; interactionId?: string; email: string; sent: boolean; error?: string }
  | { view: 'recovered' }
  | { view: 'register'; csrf: string; interactionId: string; clientName: string; email?: string; error?: string }
  | { view: 'register-code'; csrf: string; interactionId: string; clientName: string; email: string; error?: string };

/** Form posts and links of these pages, relative to the issuer. */
export const HOSTED_PATHS = {
  recover: '/oauth2/authorize/recover',
  recoverComplete: '/oauth2/authorize/recover/complete',
  register: '/oauth2/authorize/register',
  registerComplete: '/oauth2/authorize/register/complete',
} as const;

function hiddenFields(csrf: string, interactionId: string | undefined): Raw {
  return html`<input type="hidden" name="csrf_token" value="${csrf}">${interactionId ? html`
<input type="hidden" name="interaction_id" value="${interactionId}">` : ''}`;
}

const errorLine = (error: string | undefined) => (error ? html`<p class="error" id="form-error" role="alert">${error}</p>` : '');
const describedBy = (error: string | undefined) => html`${attr('aria-describedby', error ? 'form-error' : undefined)}${attr('aria-invalid', error ? 'true' : undefined)}`;

function emailField(email: string | undefined, error: string | undefined): Raw {
  return html`<div class="field">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" spellcheck="false" autocapitalize="none" required value="${email ?? ''}"${describedBy(error)} autofocus>
</div>`;
}

function codeAndPassword(error: string | undefined, passwordLabel: string): Raw {
  return html`<div class="field">
<label for="code">Code from the email</label>
<input id="code" name="code" type="text" inputmode="numeric" pattern="[0-9]*" maxlength="6" autocomplete="one-time-code" spellcheck="false" autocapitalize="none" required${describedBy(error)} autofocus>
</div>
<div class="field">
<label for="password">${passwordLabel}</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required aria-describedby="password-hint${error ? ' form-error' : ''}"${attr('aria-invalid', error ? 'true' : undefined)}>
<p class="note" id="password-hint">At least 8 characters.</p>
</div>`;
}

function recoverPage(frame: PageFrame, m: Extract<HostedPageModel, { view: 'recover' }>): string {
  return layout(
    frame,
    'Reset your password',
    html`<h1>Reset your password</h1>
<p class="lead">Enter the email address of your account. We will send you a code to choose a new password.</p>
${errorLine(m.error)}
<form method="post" action="${frame.issuerPath + HOSTED_PATHS.recover}" novalidate>
${hiddenFields(m.csrf, m.interactionId)}
${emailField(m.email, m.error)}
<button class="primary" type="submit">Send code</button>
</form>`,
  );
}

function recoverCodePage(frame: PageFrame, m: Extract<HostedPageModel, { view: 'recover-code' }>): string {
  return layout(
    frame,
    'Choose a new password',
    html`<h1>Choose a new password</h1>
${m.sent ? html`<p class="ok" role="status">If an account exists for <strong>${m.email}</strong>, we sent it a code. It is valid for 10 minutes.</p>` : html`<p class="lead">Enter the code we sent to <strong>${m.email}</strong>.</p>`}
${errorLine(m.error)}
<form method="post" action="${frame.issuerPath + HOSTED_PATHS.recoverComplete}" novalidate>
${hiddenFields(m.csrf, m.interactionId)}
<input type="hidden" name="email" value="${m.email}">
${codeAndPassword(m.error, 'New password')}
<button class="primary" type="submit">Change password</button>
</form>
<p class="note"><a href="${frame.issuerPath + HOSTED_PATHS.recover}${m.interactionId ? `?interaction_id=${encodeURIComponent(m.interactionId)}` : ''}">Send a new code</a></p>`,
  );
}

function recoveredPage(frame: PageFrame): string {
  return layout(
    frame,
    'Your password was changed',
    html`<h1>Your password was changed</h1>
<p class="lead" role="status">You were signed out everywhere. Return to the application and sign in with your new password.</p>`,
  );
}

function registerPage(frame: PageFrame, m: Extract<HostedPageModel, { view: 'register' }>): string {
  return layout(
    frame,
    `Create an account – ${m.clientName}`,
    html`<h1>Create an account</h1>
<p class="lead">to continue to <strong>${m.clientName}</strong>. We will send a code to confirm your email address.</p>
${errorLine(m.error)}
<form method="post" action="${frame.issuerPath + HOSTED_PATHS.register}" novalidate>
${hiddenFields(m.csrf, m.interactionId)}
${emailField(m.email, m.error)}
<button class="primary" type="submit">Send code</button>
</form>`,
  );
}

function registerCodePage(frame: PageFrame, m: Extract<HostedPageModel, { view: 'register-code' }>): string {
  return layout(
    frame,
    `Confirm your email address – ${m.clientName}`,
    html`<h1>Confirm your email address</h1>
<p class="ok" role="status">We sent a message to <strong>${m.email}</strong>. Enter the code it holds; it is valid for 10 minutes.</p>
${errorLine(m.error)}
<form method="post" action="${frame.issuerPath + HOSTED_PATHS.registerComplete}" novalidate>
${hiddenFields(m.csrf, m.interactionId)}
<input type="hidden" name="email" value="${m.email}">
${codeAndPassword(m.error, 'Choose a password')}
<button class="primary" type="submit">Create account</button>
</form>`,
  );
}

export function renderHostedPage(frame: PageFrame, model: HostedPageModel): string {
  switch (model.view) {
    case 'recover':
      return recoverPage(frame, model);
    case 'recover-code':
      return recoverCodePage(frame, model);
    case 'recovered':
      return recoveredPage(frame);
    case 'register':
      return registerPage(frame, model);
    case 'register-code':
      return registerCodePage(frame, model);
  }
}
