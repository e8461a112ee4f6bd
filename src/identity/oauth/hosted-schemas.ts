import { T } from '../../platform/http/schema';

/**
 * The hosted registration and recovery pages' forms and links (issue 23 point 6): shapes for
 * the OpenAPI document; the values are checked by sessions/hosted-accounts.ts.
 */
const PageFields = {
  interaction_id: T.Optional(T.String({ description: 'the authorization request the page belongs to (absent for a recovery opened from a mail)' })),
  csrf_token: T.Optional(T.String({ description: "the session's CSRF token, from the page's hidden field" })),
};

export const HostedPageQuery = {
  interaction_id: { schema: T.String(), description: 'the authorization request the page belongs to (from the sign-in page\u2019s link)' },
  email: { schema: T.String(), description: 'recovery only: the address, from a recovery mail\u2019s link (opens the code form)' },
};
export const HostedEmailForm = T.Object({ ...PageFields, email: T.Optional(T.String({ examples: ['ada@example.com'] })) });
export const HostedCodeForm = T.Object({
  ...PageFields,
  email: T.Optional(T.String({ examples: ['ada@example.com'] })),
  code: T.Optional(T.String({ description: 'the six digits of the mail', examples: ['123456'] })),
  password: T.Optional(T.String({ description: 'the new password (the registration policy)' })),
});
