import { Enum, Strict, T, checker } from '../../platform/http/schema';

export const REGISTRATION_MODES = ['CONTROLLED', 'SELF_SERVICE'] as const;

/** Lower-case letters, digits and inner hyphens: a DNS label, so it fits a host or a path. */
export const Slug = () => T.String({ pattern: '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$', description: '1-63 lower-case letters, digits or inner hyphens' });

/** Spec 03 tenant create body. */
export const TenantCreate = Strict({ slug: Slug(), registrationMode: T.Optional(Enum(REGISTRATION_MODES)) });
export const checkTenantCreate = checker(TenantCreate);

/** Spec 03 tenant update body: slug, issuer (the managed issuer, or a host-only custom one) and registrationMode, all replaced. */
export const TenantUpdate = Strict({
  slug: Slug(),
  issuer: T.String({ format: 'uri', maxLength: 2048, description: 'the managed issuer, or a host-only custom issuer such as https://id.example.com' }),
  registrationMode: Enum(REGISTRATION_MODES),
});
export const checkTenantUpdate = checker(TenantUpdate);

/** Spec 03 Tenant. */
export const Tenant = T.Object({
  id: T.String({ format: 'uuid' }),
  slug: T.String(),
  issuer: T.String(),
  status: Enum(['ACTIVE', 'DISABLED']),
  registrationMode: Enum(REGISTRATION_MODES),
  clientCount: T.Integer({ minimum: 0 }),
  resourceCount: T.Integer({ minimum: 0 }),
  createdAt: T.String({ format: 'date-time' }),
  managedIssuer: T.String(),
  configurationManaged: T.Boolean(),
  slugLocked: T.Boolean(),
  issuerLocked: T.Boolean(),
});
