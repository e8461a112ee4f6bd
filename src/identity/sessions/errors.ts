/** Error codes the browser flow sends back to clients (OIDC Core 3.1.2.6, RFC 6749 §4.1.2.1). */
export const AuthorizeErrors = {
  loginRequired: 'login_required',
  consentRequired: 'consent_required',
  accessDenied: 'access_denied',
} as const;

/** What a sign-in page says when something is wrong; one place for the wording and status. */
export interface PageError {
  status: number;
  title: string;
  message: string;
  retryAfter?: number;
}

export const PageErrors = {
  badRequest: {
    status: 400,
    title: 'This sign-in link is not valid',
    message: 'The application sent an invalid sign-in request. Return to the application and try again.',
  },
  sessionMissing: {
    status: 400,
    title: 'Your sign-in session has ended',
    message: 'Return to the application and start signing in again. Make sure cookies are enabled for this site.',
  },
  csrf: {
    status: 403,
    title: 'This form could not be verified',
    message: 'For your security the form was not accepted. Return to the application and start signing in again.',
  },
  interactionGone: {
    status: 400,
    title: 'This sign-in request has expired',
    message: 'It took too long or was already completed. Return to the application and start signing in again.',
  },
  clientGone: {
    status: 400,
    title: 'This application is not available',
    message: 'The application you were signing in to is no longer available.',
  },
  badForm: {
    status: 400,
    title: 'Something went wrong',
    message: 'The form was incomplete. Return to the application and start signing in again.',
  },
  unexpected: {
    status: 500,
    title: 'Something went wrong',
    message: 'We could not complete your sign-in. Return to the application and try again.',
  },
  tooLarge: {
    status: 413,
    title: 'Something went wrong',
    message: 'The form was too large. Return to the application and start signing in again.',
  },
  missingCredentials: { status: 400, title: 'Sign in', message: 'Enter your email address and password.' },
  /** Identical for unknown accounts, wrong passwords and disabled accounts. */
  invalidCredentials: { status: 400, title: 'Sign in', message: 'The email address or password is incorrect.' },
  missingCode: { status: 400, title: 'Two-step verification', message: 'Enter the code.' },
  /** The same for a wrong, reused or unknown code. */
  invalidSecondFactor: { status: 400, title: 'Two-step verification', message: 'The code is incorrect or was already used.' },
  throttled: (seconds: number): PageError => ({
    status: 429,
    title: 'Sign in',
    message: `Too many sign-in attempts. Wait ${seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`} and try again.`,
    retryAfter: seconds,
  }),
} satisfies Record<string, PageError | ((n: number) => PageError)>;

/** The hosted registration and recovery pages (sessions/hosted-accounts.ts): what their forms say. */
export const HostedPageErrors = {
  notOffered: { status: 404, title: 'Page not found', message: 'This page is not available here. Return to the application and sign in.' },
  unavailable: { status: 503, title: 'Email is not available', message: 'We cannot send email right now. Try again later.' },
  missingEmail: { status: 400, title: 'Email', message: 'Enter your email address.' },
  /** Not an address a user could have (the users' Email rule): no challenge, no mail. */
  badEmail: { status: 400, title: 'Email', message: 'Enter an email address such as name@example.com.' },
  missingCode: { status: 400, title: 'Code', message: 'Enter the code from the email and a password.' },
  /** The same for a wrong, expired, spent or unknown code, and for an account gone meanwhile. */
  invalidCode: { status: 400, title: 'Code', message: 'The code is incorrect or has expired. Check the email, or send a new code.' },
  password: (rule: string): PageError => ({ status: 400, title: 'Password', message: `The ${rule}.` }),
  samePassword: { status: 400, title: 'Password', message: 'That is your current password. Send a new code and choose a different one.' },
  registrationConflict: { status: 409, title: 'Create an account', message: 'An account with this email address exists. Sign in, or reset its password.' },
  throttled: (seconds: number): PageError => ({
    status: 429,
    title: 'Please wait',
    message: `Too many codes were asked for. Wait ${seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`} and try again.`,
    retryAfter: seconds,
  }),
} satisfies Record<string, PageError | ((x: never) => PageError)>;
