import { T } from '../../platform/http/schema';

/** The account page's forms (issue 10): shapes for the OpenAPI document; the flow checks the values. */
const Csrf = { csrf_token: T.Optional(T.String()) };
const SignIn = { interaction_id: T.Optional(T.String()), ...Csrf };
export const AccountLoginForm = T.Object({ ...SignIn, email: T.Optional(T.String()), password: T.Optional(T.String()) });
export const AccountMfaForm = T.Object({ ...SignIn, method: T.Optional(T.Union([T.Literal('totp'), T.Literal('recovery')])), code: T.Optional(T.String()) });
export const AccountCsrfForm = T.Object(Csrf);
export const AccountConfirmForm = T.Object({ ...Csrf, code: T.Optional(T.String()) });
export const AccountProofForm = T.Object({ ...Csrf, proof: T.Optional(T.String({ description: 'the current password, or a current authenticator or recovery code' })) });
export const AccountPasswordForm = T.Object({
  ...Csrf,
  current_password: T.Optional(T.String()),
  new_password: T.Optional(T.String()),
  sign_out_others: T.Optional(T.Literal('yes', { description: "sent by the checked box 'Sign out other sessions': ends the user's refresh tokens, grants and other browser sessions" })),
});
