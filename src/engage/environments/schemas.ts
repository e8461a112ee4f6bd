import { Enum, Strict, T, checker } from '../../platform/http/schema';
import { PLATFORMS } from '../shared/schemas';

export { PLATFORMS };
const Name = () => T.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: '1 to 100 characters, not only spaces' });

export const EnvironmentCreate = Strict({ name: Name() });
export const checkEnvironmentCreate = checker(EnvironmentCreate);

export const AppCreate = Strict({ environment: T.String({ minLength: 1 }), platform: Enum(PLATFORMS), name: Name() });
export const checkAppCreate = checker(AppCreate);

export const AccessKeyCreate = Strict({
  environment: T.String({ minLength: 1 }),
  apps: T.Array(T.String({ minLength: 1 }), { minItems: 1, description: 'the apps the key may act for (at least one)' }),
  name: T.Optional(Name()),
});
export const checkAccessKeyCreate = checker(AccessKeyCreate);
