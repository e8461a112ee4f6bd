import type { Context } from 'hono';
import { headerOf, readBodyText } from '../../platform/http/request';
import type { IssuerEnv } from '../issuer';
import { PageErrors, type PageError } from '../sessions/errors';

/** An authorization request is a few hundred bytes; request objects are not supported. */
const MAX_AUTHORIZATION_FORM = 16 * 1024;

/**
 * POST {issuer}/oauth2/authorize (OIDC Core 3.1.2.1: the parameters form-serialized in the body).
 * Answered with 303 See Other (RFC 9110 §15.4.4) to the same endpoint with the same parameters
 * in the query, unchanged (order and repetitions kept, so a duplicated parameter is reported as
 * on GET), where the one GET code path handles it.
 *
 * Why not answer in place: relying parties post from their own site, and on a cross-site POST
 * the browser withholds our SameSite=Lax session cookie. Answered in place, a signed-in user
 * would be asked to sign in again (prompt=none would always be login_required) and the new
 * session would replace theirs. The 303 turns it into a top-level GET, which carries the cookie.
 */
export function authorizeByPost(renderError: (c: Context<IssuerEnv>, e: PageError) => Response) {
  return async (c: Context<IssuerEnv>): Promise<Response> => {
    if (!/^application\/x-www-form-urlencoded\s*(;.*)?$/i.test(headerOf(c, 'content-type') ?? '')) return renderError(c, PageErrors.badForm);
    const text = await readBodyText(c, MAX_AUTHORIZATION_FORM);
    if (text === undefined) return renderError(c, PageErrors.tooLarge);
    const query = new URLSearchParams(text).toString();
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    return c.redirect(`${c.get('tenant').issuer}/oauth2/authorize${query ? '?' + query : ''}`, 303);
  };
}
