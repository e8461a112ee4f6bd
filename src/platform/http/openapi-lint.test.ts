import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Ajv2020 from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { operationIdOf } from './openapi';

type Operation = {
  operationId?: string;
  summary?: string;
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, { schema: object; example?: unknown }> };
};
type Doc = { paths: Record<string, Record<string, Operation>>; components: { securitySchemes: Record<string, unknown> } };

let h: Harness;
let text: string;
let doc: Doc;
beforeAll(async () => {
  h = await createHarness();
  const res = await h.request('/openapi.json'); // the document exactly as served
  text = await res.text();
  doc = JSON.parse(text) as Doc;
});
afterAll(() => h.close());

const operations = () =>
  Object.entries(doc.paths).flatMap(([p, item]) =>
    Object.entries(item)
      .filter(([m]) => m !== 'servers')
      .map(([m, op]) => ({ name: `${m.toUpperCase()} ${p}`, op })),
  );

type Lint = { totals: { errors: number; warnings: number }; problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] };

/** Redocly CLI (a devDependency) on the document, offline: no telemetry, no update check. */
async function redoclyLint(): Promise<Lint> {
  const dir = mkdtempSync(path.join(tmpdir(), 'engage-openapi-'));
  try {
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, text);
    const cli = path.join(path.dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');
    const args = [cli, 'lint', '--extends', 'recommended', '--format', 'json', '--max-problems', '10000', file];
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
    // Exit code 1 when there are errors: the JSON report on stdout says which.
    const out = await promisify(execFile)(process.execPath, args, { cwd: dir, env, maxBuffer: 64 << 20 }).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
    return JSON.parse(out.stdout) as Lint;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The recommended ruleset's warnings we keep, each true of the API: no license to name
 * (package.json: UNLICENSED); the authorization POSTs answer only with redirects. (Health,
 * readiness and this document answer a 400 too: a NUL in the URL, as every route.)
 */
const KEPT_WARNINGS = [
  'info-license #/info',
  'operation-2xx-response #/paths/~1oauth2~1authorize/post/responses',
  'operation-2xx-response #/paths/~1oauth2~1authorize~1federation/post/responses',
];

describe('the OpenAPI document under Redocly’s recommended ruleset (issue 23 point 9)', () => {
  it('has no error, and only the warnings we chose to keep', async () => {
    const lint = await redoclyLint();
    const problems = (severity: string) => lint.problems.filter((p) => p.severity === severity).map((p) => `${p.ruleId} ${p.location[0]?.pointer} ${p.message}`);
    expect(problems('error')).toEqual([]);
    expect(lint.totals.errors).toBe(0);
    const warnings = lint.problems.filter((p) => p.severity === 'warn').map((p) => `${p.ruleId} ${p.location[0]?.pointer}`);
    expect(warnings.sort()).toEqual([...KEPT_WARNINGS].sort());
    console.info(`redocly lint --extends recommended: ${lint.totals.errors} errors, ${lint.totals.warnings} warnings`);
  }, 120_000);

  it('names every operation uniquely and stably, in one line, with its security (public: [])', () => {
    const ids = new Set<string>();
    for (const { name, op } of operations()) {
      expect(op.operationId, name).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect(ids.has(op.operationId!), `${name}: ${op.operationId}`).toBe(false);
      ids.add(op.operationId!);
      expect(op.summary?.trim(), name).toBeTruthy();
      expect(op.summary, name).not.toMatch(/\n/);
      expect(Array.isArray(op.security), name).toBe(true);
      for (const req of op.security!) for (const scheme of Object.keys(req)) expect(doc.components.securitySchemes, `${name}: ${scheme}`).toHaveProperty(scheme);
    }
    expect(ids.size).toBeGreaterThan(100);
    const byName = Object.fromEntries(operations().map(({ name, op }) => [name, op]));
    expect(byName['POST /v1/sdk/operations:batch'].operationId).toBe('postV1SdkOperationsBatch');
    expect(byName['GET /healthz'].security).toEqual([]);
    expect(byName['POST /oauth2/native/password'].security).toEqual([]);
    expect(byName['POST /oauth2/token'].security).toEqual([{ clientBasic: [] }]);
    expect(byName['GET /metrics'].security).toEqual([{ metricsToken: [] }, {}]);
    expect(byName['GET /identity/admin/tenants'].security).toEqual([{ bearerToken: [] }]);
  });

  it('documents on every operation the 400 any route answers to a NUL in its URL, in the family’s form', async () => {
    for (const { name, op } of operations()) expect(Object.keys((op as { responses: object }).responses), name).toContain('400');
    const events = doc.paths['/v1/sdk/sync/events'].get as { responses: Record<string, { content?: Record<string, unknown> }> };
    expect(Object.keys(events.responses['400'].content ?? {})).toEqual(['application/problem+json']);
    // Answered before the credential is read: the same for anyone.
    const res = await h.request('/v1/sdk/sync/events?x=%00');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toEqual({ code: 'invalid_request', message: 'x: holds a NUL character (%00), which text values may not contain' });
  });

  it('makes the default operationId from the method and path', () => {
    expect(operationIdOf('get', '/.well-known/oauth-authorization-server/t/{tenantSegment}')).toBe('getWellKnownOauthAuthorizationServerTByTenantSegment');
    expect(operationIdOf('put', '/identity/admin/tenants/{tenantId}/users/{userId}')).toBe('putIdentityAdminTenantsByTenantIdUsersByUserId');
  });

  it('declares the path parameter of /.well-known/oauth-authorization-server/t/{tenantSegment}', () => {
    const op = doc.paths['/.well-known/oauth-authorization-server/t/{tenantSegment}'].get as { parameters?: { name: string; in: string; required: boolean }[] };
    expect(op.parameters).toEqual([expect.objectContaining({ name: 'tenantSegment', in: 'path', required: true })]);
  });

  it('gives every request body an example that its own schema accepts', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    let n = 0;
    for (const { name, op } of operations()) {
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        expect(media.example, `${name} ${type}`).toBeDefined();
        const validate = ajv.compile(media.schema);
        expect(validate(media.example), `${name} ${type}: ${ajv.errorsText(validate.errors)}`).toBe(true);
        n++;
      }
    }
    expect(n).toBeGreaterThan(50);
  });

  it('cites no document outside the repository', () => {
    const citations = [...text.matchAll(/.{0,60}(\bspec(ification)?\s*0\d|spec\/0\d|\.\.\/shared|\bthe contract\b).{0,20}/gi)].map((m) => m[0]);
    expect(citations).toEqual([]);
    const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
    for (const [, ref] of text.matchAll(/\b(docs\/[\w./-]+\.md)/g)) expect(existsSync(path.join(root, ref)), ref).toBe(true);
  });
});
