import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../platform/config';

describe('administrationApi setting', () => {
  it('is on by default, and off with ENGAGE_ADMINISTRATION_API=false, the flag or the file', () => {
    expect(loadConfig({}).administrationApi).toBe(true);
    expect(loadConfig({ env: { ENGAGE_ADMINISTRATION_API: 'false' } }).administrationApi).toBe(false);
    expect(loadConfig({ env: { ENGAGE_ADMINISTRATION_API: 'true' } }).administrationApi).toBe(true);
    expect(loadConfig({ env: { ENGAGE_ADMINISTRATION_API: 'true' }, flags: { administrationApi: 'false' } }).administrationApi).toBe(false);
  });

  it('refuses anything but true or false', () => {
    expect(() => loadConfig({ env: { ENGAGE_ADMINISTRATION_API: 'no' } })).toThrow(new ConfigError('invalid setting administrationApi (ENGAGE_ADMINISTRATION_API): expected true or false'));
  });
});
