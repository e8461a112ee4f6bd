import { describe, expect, it } from 'vitest';
import { InAppBounds, INTERACTION_TYPES, MESSAGE_STATUSES, PROPERTY_OPERATORS, TRIGGER_TYPES, messageViolations, type MessageDefinition } from '../engage/in-app/schemas';
import * as M from './web/pages/engage/in-app-model';

/**
 * The console's in-app message form (src/console/web/pages/engage/in-app-model.ts) against the
 * server's message schema: its copied lists are the server's, a definition read into the form and
 * written back unchanged is the same definition (valid for the server), and a refusal's fields are
 * found in its description.
 */
const withVariants: MessageDefinition = {
  key: 'welcome',
  description: 'Welcome offer',
  targetApps: ['0b5f1c44-6c3e-4a8e-9f00-3a3b1c2d4e5f'],
  audience: [
    { attribute: 'appVersion', operator: 'semverGte', values: ['2.0.0'] },
    { attribute: 'profile.attributes.plan', operator: 'in', values: ['gold', '5'], negate: true },
  ],
  schedule: { startsAt: '2026-12-01T09:00:00.000Z', endsAt: '2026-12-24T18:30:00.000Z' },
  triggers: [
    { type: 'APP_OPEN' },
    { type: 'EVENT', eventName: 'purchase', conditions: [{ property: 'amount', operator: 'gt', values: [10] }, { property: 'sku', operator: 'in', values: ['a', '5', true] }, { property: 'coupon', operator: 'exists' }] },
    { type: 'SCREEN', screenKey: 'cart' },
  ],
  priority: 7,
  frequencyCap: { impressions: 3, periodSeconds: 7_200 },
  defaultLocale: 'en',
  fallbackLocale: 'de',
  variants: [
    {
      key: 'control',
      weight: 4_000,
      content: {
        en: { title: 'Welcome', body: 'Hi', imageUrl: 'https://cdn.example.com/a.png', buttons: [{ label: 'Shop', action: 'DEEP_LINK', deepLink: 'shop://offers' }, { label: 'Later', action: 'DISMISS' }] },
        de: { title: 'Willkommen', body: 'Hallo' },
      },
    },
    // A variant without a de layout stays without one.
    { key: 'bold', weight: 6_000, content: { en: { title: 'WELCOME', body: 'HI' } } },
  ],
  bucketBy: 'profile',
};

describe('console in-app message form', () => {
  it('copies the server’s statuses, interaction and trigger types, property operators and bounds', () => {
    expect([...M.MESSAGE_STATUSES]).toEqual([...MESSAGE_STATUSES]);
    expect([...M.INTERACTION_TYPES]).toEqual([...INTERACTION_TYPES]);
    expect([...M.TRIGGER_TYPES]).toEqual([...TRIGGER_TYPES]);
    expect([...M.PROPERTY_OPERATORS]).toEqual([...PROPERTY_OPERATORS]);
    expect(M.MAX_BUTTONS).toBe(InAppBounds.buttons);
    expect(M.MAX_VARIANTS).toBe(InAppBounds.variants);
  });

  it('writes back a definition read into the form unchanged, each value of its type', () => {
    expect(messageViolations(withVariants)).toEqual([]);
    expect(M.fileOf(M.draftOf(withVariants))).toEqual(withVariants);
    const { variants: _v, bucketBy: _b, ...rest } = withVariants;
    const plain: MessageDefinition = { ...rest, triggers: [{ type: 'APP_OPEN' }], content: { en: { title: 'T', body: 'B' } } };
    expect(M.fileOf(M.draftOf(plain))).toEqual(plain);
    const draft = M.draftOf(withVariants);
    expect(draft.capPeriod).toBe('2');
    expect(draft.capUnit).toBe('hours');
    expect(draft.triggers[1].conditions[1].values).toBe('a, "5", true');
  });

  it('makes a valid file of a new draft once its key, title and body are typed', () => {
    const d = M.newDraft();
    expect(messageViolations(M.fileOf(d)).map((v) => v.field).sort()).toEqual(['content.en.body', 'content.en.title', 'key']);
    d.key = 'hello';
    d.content.en = { ...d.content.en, title: 'Hello', body: 'There' };
    expect(messageViolations(M.fileOf(d))).toEqual([]);
    expect(M.fileOf(d)).toEqual({ key: 'hello', triggers: [{ type: 'APP_OPEN' }], defaultLocale: 'en', content: { en: { title: 'Hello', body: 'There', buttons: [{ label: 'OK', action: 'DISMISS' }] } } });
  });

  it('finds the refused fields in a refusal’s description', () => {
    expect(M.fieldErrors('triggers[0].eventName: is required for EVENT; content.pt-BR.buttons[1].deepLink: must match pattern; body.key: must match; key: is immutable; and 3 more violations')).toEqual({
      'triggers[0].eventName': 'is required for EVENT',
      'content.pt-BR.buttons[1].deepLink': 'must match pattern',
      key: 'must match; is immutable',
    });
    expect(M.fieldErrors(undefined)).toEqual({});
  });
});
