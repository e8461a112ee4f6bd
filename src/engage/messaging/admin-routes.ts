/**
 * Templates, previews, test groups and test sends on the engagement administration API (issue
 * 24 point 4), under `/environments/{environmentId}`: thin handlers over the services the CLI
 * calls (templates.ts, test-groups.ts, service.ts).
 */
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { pageQuery } from '../../platform/http/pagination';
import { T } from '../../platform/http/schema';
import { adminDoc, adminRoute, type EngageAdminRoutes } from '../admin/routing';
import { adminActor } from '../admin/guards';
import * as S from './admin-schemas';
import type { SendService } from './service';
import type { TemplateService } from './templates';
import type { TestGroupService } from './test-groups';
import { parseVersionSelector } from './versions';
import { EnvironmentErrors } from '../environments/errors';
import { TemplateFile } from './schemas';

const { read, manage, send } = ENGAGE_ADMIN_API.scopes;
const ENV = { environmentId: T.String({ minLength: 1, maxLength: 100, description: 'the environment id or name' }) };
const TPL = { ...ENV, templateKey: S.TemplateKeyPath };
const GRP = { ...ENV, testGroupId: S.TestGroupPath };
const BAD = 'invalid_request';
/** The request body example of create and update (docs/templates.md has the full format). */
const TEMPLATE_EXAMPLE = {
  key: 'order.shipped',
  apps: ['shop-ios', 'shop-android'],
  defaultLocale: 'en',
  variables: { orderId: { type: 'string' } },
  localizations: { en: { title: 'Order {{orderId}} shipped', body: 'It is on its way.', deepLink: 'shop://orders/{{orderId}}' } },
};

export function messagingAdminRoutes(deps: { templates: TemplateService; testGroups: TestGroupService; sends: SendService }): EngageAdminRoutes {
  const { templates, testGroups, sends } = deps;
  const envId = (c: { get(k: 'environment'): { id: string } }) => c.get('environment').id;
  return (admin, guard) => {
    const base = '/environments/:environmentId';

    // Templates.
    admin.get(`${base}/templates`, guard(read), adminRoute(
      adminDoc('List the templates of an environment', { params: ENV, query: pageQuery, responses: { 200: { description: 'a page of templates, by key', schema: S.TemplatePage } }, errors: { 400: BAD } }),
      async (c, { query }) => c.json(await templates.page(envId(c), query)),
    ));
    admin.post(`${base}/templates`, guard(manage), adminRoute(
      adminDoc('Create a template: its first draft, from a template file (docs/templates.md)', {
        params: ENV, body: { schema: TemplateFile, example: TEMPLATE_EXAMPLE },
        responses: { 201: { description: 'the template (DRAFT until published)', schema: S.Template } },
        errors: { 400: BAD, 409: 'template_exists' },
      }),
      async (c, { body }) => c.json(await templates.create({ environment: envId(c), file: body }, adminActor(c)), 201),
    ));
    admin.get(`${base}/templates/:templateKey`, guard(read), adminRoute(
      adminDoc('Read a template: versions, draft and published definitions, sends and deliveries by state', {
        params: TPL, responses: { 200: { description: 'the template', schema: S.TemplateDetail } }, errors: { 400: BAD, 404: 'template_not_found' },
      }),
      async (c, { params }) => c.json(await templates.show(envId(c), params.templateKey)),
    ));
    admin.put(`${base}/templates/:templateKey`, guard(manage), adminRoute(
      adminDoc('Edit a template: a new draft (or the unpublished draft replaced); the published version keeps serving', {
        params: TPL, body: { schema: S.TemplateUpdate, example: TEMPLATE_EXAMPLE },
        responses: { 200: { description: 'the template', schema: S.Template } },
        errors: { 400: BAD, 404: 'template_not_found', 409: 'template_archived, configuration_managed' },
      }),
      async (c, { params, body }) => c.json(await templates.update({ environment: envId(c), key: params.templateKey, file: body }, adminActor(c))),
    ));
    for (const verb of ['publish', 'archive'] as const) {
      admin.post(`${base}/templates/:templateKey/${verb}`, guard(manage), adminRoute(
        adminDoc(verb === 'publish' ? 'Publish the latest draft: it alone serves sends from now on' : 'Archive a template: it accepts no more sends', {
          params: TPL, responses: { 200: { description: 'the template', schema: S.Template } },
          errors: { 400: BAD, 404: 'template_not_found', 409: verb === 'publish' ? 'no_draft, template_archived, configuration_managed' : 'configuration_managed' },
        }),
        async (c, { params }) => c.json(await templates[verb](envId(c), params.templateKey, adminActor(c))),
      ));
    }
    admin.get(`${base}/templates/:templateKey/versions`, guard(read), adminRoute(
      adminDoc('List the versions of a template, oldest first', {
        params: TPL, responses: { 200: { description: 'the versions', schema: S.TemplateVersions } }, errors: { 400: BAD, 404: 'template_not_found' },
      }),
      async (c, { params }) => c.json({ items: await templates.versions(envId(c), params.templateKey) }),
    ));
    admin.get(`${base}/templates/:templateKey/versions/:version`, guard(read), adminRoute(
      adminDoc('Read one version of a template with its definition', {
        params: { ...TPL, version: S.VersionPath }, responses: { 200: { description: 'the version', schema: S.TemplateVersionDetail } },
        errors: { 400: BAD, 404: 'template_not_found, version_not_found' },
      }),
      async (c, { params }) => c.json(await templates.version(envId(c), params.templateKey, parseVersionSelector(params.version)!)),
    ));
    admin.post(`${base}/templates/:templateKey/preview`, guard(read), adminRoute(
      adminDoc('Render a version, or an unsaved template file (file), for a locale and variables exactly as a send would, per target app; sends and writes nothing', {
        params: TPL, body: { schema: S.PreviewRequest, required: false, example: { version: 'draft', locale: 'de-AT', variables: { orderId: 'A-17' } } },
        responses: { 200: { description: 'the rendered message and each app’s provider payload', schema: S.Preview } },
        errors: { 400: 'invalid_request, invalid_variables, message_too_large', 404: 'template_not_found, version_not_found' },
      }),
      async (c, { params, body }) => c.json(await templates.preview(envId(c), params.templateKey, { ...(body ?? {}), version: parseVersionSelector(body?.version) })),
    ));

    // Test groups.
    admin.get(`${base}/test-groups`, guard(read), adminRoute(
      adminDoc('List the test groups of an environment', { params: ENV, query: pageQuery, responses: { 200: { description: 'a page of test groups, by name', schema: S.TestGroupPage } }, errors: { 400: BAD } }),
      async (c, { query }) => c.json(await testGroups.list(envId(c), query)),
    ));
    admin.post(`${base}/test-groups`, guard(manage), adminRoute(
      adminDoc('Create a test group: a name and up to 100 members (installation ids or external ids)', {
        params: ENV, body: { schema: S.TestGroupCreate },
        responses: { 201: { description: 'the test group', schema: S.TestGroupDetail } },
        errors: { 400: BAD, 409: 'test_group_exists' },
      }),
      async (c, { body }) => c.json(await testGroups.create({ environment: envId(c), name: body.name, members: members(body.members) }, adminActor(c)), 201),
    ));
    admin.get(`${base}/test-groups/:testGroupId`, guard(read), adminRoute(
      adminDoc('Read a test group (by id or name) with its members', {
        params: GRP, responses: { 200: { description: 'the test group', schema: S.TestGroupDetail } }, errors: { 400: BAD, 404: 'test_group_not_found' },
      }),
      async (c, { params }) => c.json(await testGroups.show(envId(c), params.testGroupId)),
    ));
    admin.patch(`${base}/test-groups/:testGroupId`, guard(manage), adminRoute(
      adminDoc('Rename a test group and/or replace its members', {
        params: GRP, body: { schema: S.TestGroupUpdate },
        responses: { 200: { description: 'the test group', schema: S.TestGroupDetail } },
        errors: { 400: BAD, 404: 'test_group_not_found', 409: 'test_group_exists, configuration_managed' },
      }),
      async (c, { params, body }) =>
        c.json(await testGroups.update({ environment: envId(c), ref: params.testGroupId, name: body.name, members: body.members && members(body.members) }, adminActor(c))),
    ));
    admin.delete(`${base}/test-groups/:testGroupId`, guard(manage), adminRoute(
      adminDoc('Delete a test group (its past test sends stay)', {
        params: GRP, responses: { 204: { description: 'empty body' } }, errors: { 400: BAD, 404: 'test_group_not_found', 409: 'configuration_managed' },
      }),
      async (c, { params }) => {
        await testGroups.delete(envId(c), params.testGroupId, adminActor(c));
        return c.body(null, 204);
      },
    ));

    // Test sends.
    admin.post(`${base}/test-sends`, guard(send), adminRoute(
      adminDoc('Send a version of a template to a test group, marked as a test (outside rate limits and counts)', {
        params: ENV, body: { schema: S.TestSendRequest },
        responses: { 202: { description: 'admitted: the transactional send response, with the number of members that named no installation', schema: S.TestSendResponse } },
        errors: { 400: 'invalid_request, invalid_variables, message_too_large', 404: 'template_not_found, version_not_found, test_group_not_found', 409: 'template_archived, idempotency_key_reused, environment_disabled' },
      }),
      async (c, { body }) => {
        // A disabled environment sends nothing, as its access keys send nothing (an outside review).
        if (c.get('environment').status !== 'ACTIVE') throw EnvironmentErrors.environmentDisabled(c.get('environment').name);
        const out = await sends.testSend(
          { environmentId: envId(c), templateKey: body.template, testGroup: body.testGroup, version: parseVersionSelector(body.version), locale: body.locale, variables: body.variables, idempotencyKey: body.idempotencyKey },
          adminActor(c),
        );
        return c.json({ unresolvedMembers: 0, ...out.response, isTest: true }, 202);
      },
    ));
  };
}

/** The wire's members as the service takes them (the service refuses a member with both or neither). */
const members = (list: { installationId?: string; externalId?: string }[]) => list as ({ installationId: string } | { externalId: string })[];
