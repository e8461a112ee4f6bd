import type { SecondFactors } from '../mfa/port';
import type { SocialSignIn } from './context';
import { nativeFailure } from './errors';

/**
 * Stand-ins until issue 10 part B (TOTP and recovery codes, identity providers) is merged:
 * nobody has a second factor, and no identity provider is configured.
 */
export const noSecondFactors: SecondFactors = {
  hasSecondFactor: async () => false,
  verifySecondFactor: async () => ({ ok: false }),
};

export const noProviders: SocialSignIn = {
  signInWithIdToken: async () => {
    throw nativeFailure('provider_unavailable', 'no identity provider is configured for the tenant');
  },
};
