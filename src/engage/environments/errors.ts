import { ProblemError } from '../../platform/http/errors';

export const EnvironmentErrors = {
  invalid: (message: string) => new ProblemError(400, 'invalid_request', message),
  unknownEnvironment: (ref: string) => new ProblemError(404, 'unknown_environment', `no environment ${ref}`),
  unknownApp: (ref: string) => new ProblemError(404, 'unknown_app', `no app ${ref} in this environment`),
  unknownAccessKey: (ref: string) => new ProblemError(404, 'unknown_access_key', `no access key ${ref}`),
  nameTaken: (what: string, name: string) => new ProblemError(409, 'name_taken', `${what} name ${name} is taken`),
  accessKeyRevoked: (id: string) => new ProblemError(409, 'access_key_revoked', `access key ${id} is revoked`),
};
