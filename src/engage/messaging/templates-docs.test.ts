import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docsExample } from '../../../test/helpers/docs-examples';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { render, resolveVariables, type TemplateDefinition } from './render';
import { checkTemplateFile, templateJsonSchema } from './schemas';
import { ACTOR } from '../../../test/fixtures/actor';

const docsTemplateExample = () => docsExample('templates.md', 'order-shipped.json');

/** docs/templates.md's example file, read from the page (issue 23 point 1). */
describe('docs/templates.md: the example file and what it says about it', () => {
  let h: Harness;
  let env: string;
  beforeAll(async () => {
    h = await createHarness();
    env = (await h.services.engage.environments.create({ name: 'shop' }, ACTOR)).id;
    await h.services.engage.environments.createApp({ environment: env, platform: 'IOS', name: 'shop-ios' }, ACTOR);
  });
  afterAll(() => h.close());

  it('conforms to the schema the CLI checks with, and --print-schema prints that schema', () => {
    expect(checkTemplateFile(docsTemplateExample())).toBeNull();
    expect(templateJsonSchema()).toEqual(JSON.parse(JSON.stringify(checkTemplateFile.schema)));
  });

  it('is accepted by templates create as a DRAFT, and renders as the page says', async () => {
    const t = h.services.engage.messaging.templates;
    expect(await t.create({ environment: 'shop', file: docsTemplateExample() }, ACTOR)).toMatchObject({ key: 'order.shipped', status: 'DRAFT' });
    expect(await t.publish('shop', 'order.shipped', ACTOR)).toMatchObject({ status: 'ACTIVE' });
    const def = (await t.show('shop', 'order.shipped')).published as TemplateDefinition;
    const vars = resolveVariables(def, { orderId: 'A-17', amount: 1234.5, shippedOn: '2026-03-04' });
    expect(render(def, 'de-AT', vars)).toMatchObject({ resolvedLocale: 'de', title: 'Bestellung A-17 versandt', body: 'Summe 1.234,5, versandt am 4. März 2026' });
    const en = render(def, undefined, resolveVariables(def, { orderId: 'A-17', amount: 1234.5, shippedOn: '2026-03-04T15:30:00Z' }));
    expect(en).toMatchObject({ resolvedLocale: 'en', body: 'Total 1,234.5, shipped on March 4, 2026 at 3:30 PM', deepLink: 'shop://orders/A-17' });
    expect(en.customData).toEqual({ orderId: 'A-17', tracking: '', gift: 'false' });
    for (const bad of ['2026-02-30', '2026-03-04T15:30Z', '2026-03-04 15:30:00'])
      expect(() => resolveVariables(def, { orderId: 'A-17', amount: 1, shippedOn: bad })).toThrow('variables.shippedOn: must be an RFC 3339 date (YYYY-MM-DD) or date-time');
    expect(() => resolveVariables(def, { orderId: 'A-17', amount: 1, shippedOn: '2026-03-04', other: 1 })).toThrow('is not a variable of template order.shipped');
  });
});
