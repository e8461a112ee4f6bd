import { describe, expect, it } from 'vitest';
import { AUTOMATION_STATUSES, AutomationDefinition, RUN_STATUSES, STEP_KINDS, STEP_STATUSES, publishViolations, successors, type AutomationDefinition as Def } from '../engage/automations/schemas';
import { checker } from '../platform/http/schema';
import * as M from './web/pages/engage/automation-model';

/**
 * The console's automation graph (src/console/web/pages/engage/automation-model.ts): its copied
 * lists are the server's, the steps are laid out by their longest way from the start (a join sits
 * below both branches, a cycle's arrow goes back up, a loose step gets a last layer), a step's
 * branches are the server's successors, counts and summaries read as documented.
 */
const def = (start: string, steps: Record<string, M.Step>) => ({ start, steps });

describe('automation model', () => {
  it('copies the server’s lists', () => {
    expect(M.AUTOMATION_STATUSES).toEqual(AUTOMATION_STATUSES);
    expect(M.RUN_STATUSES).toEqual(RUN_STATUSES);
    expect(M.STEP_STATUSES).toEqual(STEP_STATUSES);
    expect(M.STEP_KINDS).toEqual(STEP_KINDS);
  });

  it('starts a new automation from a file the server accepts and would publish (templates aside)', () => {
    expect(checker(AutomationDefinition).all(M.NEW_AUTOMATION)).toEqual([]);
    expect(publishViolations(M.NEW_AUTOMATION as unknown as Def)).toEqual([]);
  });

  it('labels branches and follows the server’s successors', () => {
    for (const s of Object.values(M.NEW_AUTOMATION.steps)) expect(M.branchesOf(s).map((b) => b.to)).toEqual(successors(s as Def['steps'][string]));
    expect(M.branchesOf({ type: 'condition', then: 'a', else: 'b' })).toEqual([{ to: 'a', label: 'yes' }, { to: 'b', label: 'no' }]);
    expect(M.branchesOf({ type: 'wait', event: { eventName: 'x', timeoutSeconds: 5 }, next: 'a', timeoutNext: 'b' })).toEqual([{ to: 'a', label: 'event' }, { to: 'b', label: 'timeout' }]);
    expect(M.branchesOf({ type: 'wait', seconds: 5, next: 'a' })).toEqual([{ to: 'a' }]);
    expect(M.branchesOf({ type: 'exit' })).toEqual([]);
    // A step that can fail for good: its next unlabelled, its onFailure labelled (the server's successors, in the same order).
    for (const type of ['webhook', 'push', 'in-app'] as const) {
      const s = { type, next: 'a', onFailure: 'b' };
      expect(M.branchesOf(s)).toEqual([{ to: 'a' }, { to: 'b', label: 'on failure' }]);
      expect(M.branchesOf(s).map((b) => b.to)).toEqual(successors(s as unknown as Def['steps'][string]));
    }
    expect(M.branchesOf({ type: 'webhook', onFailure: 'b' })).toEqual([{ to: 'b', label: 'on failure' }]);
  });

  it('lays the steps out by their longest way from the start, a branch’s yes to the left of its no', () => {
    // check -> yes: tag -> done; no: hold -> (event) tag, (timeout) done.
    const d = def('check', {
      check: { type: 'condition', then: 'tag', else: 'hold' },
      hold: { type: 'wait', event: { eventName: 'purchase', timeoutSeconds: 60 }, next: 'tag', timeoutNext: 'done' },
      tag: { type: 'profile-update', addTags: ['x'], next: 'done' },
      done: { type: 'exit' },
    });
    expect(M.layerSteps(d).layers).toEqual([['check'], ['hold'], ['tag'], ['done']]);
    // check's yes skips hold's layer: its arrow goes around hold's box, inside the drawing, not through it.
    const g1 = M.layoutGraph(d);
    const hold = g1.nodes.find((n) => n.id === 'hold')!;
    const yes = M.arrowPath(g1, g1.edges.find((e) => e.from === 'check' && e.to === 'tag')!, 0, 2);
    const sideX = Number(/ L (\S+) /.exec(yes.d)![1]);
    expect(sideX < hold.x || sideX > hold.x + M.BOX.width).toBe(true);
    expect(sideX).toBeGreaterThan(0);
    expect(sideX).toBeLessThan(g1.width);
    expect(M.arrowPath(g1, { from: 'check', to: 'hold', label: 'no' }, 1, 2).d).not.toContain(' L ');
    const wide = def('a', { a: { type: 'condition', then: 'b', else: 'c' }, b: { type: 'exit' }, c: { type: 'push', next: 'd' }, d: { type: 'exit' } });
    expect(M.layerSteps(wide).layers).toEqual([['a'], ['b', 'c'], ['d']]);
    const g = M.layoutGraph(wide);
    const [b, c] = ['b', 'c'].map((id) => g.nodes.find((n) => n.id === id)!);
    expect(b.y).toBe(c.y);
    expect(b.x).toBeLessThan(c.x);
    expect(g.width).toBe(2 * M.BOX.side + 2 * M.BOX.width + M.BOX.gapX);
    expect(g.edges).toEqual([
      { from: 'a', to: 'b', label: 'yes' },
      { from: 'a', to: 'c', label: 'no' },
      { from: 'c', to: 'd' },
    ]);
  });

  it('draws a draft’s cycle back up, a missing step as such, and loose steps in a last layer', () => {
    const d = def('a', { a: { type: 'wait', seconds: 5, next: 'b' }, b: { type: 'push', next: 'a' }, loose: { type: 'exit' }, c: { type: 'push', next: 'nowhere' } });
    const { layers, unreachable } = M.layerSteps(d);
    expect(layers).toEqual([['a'], ['b'], ['loose', 'c']]);
    expect([...unreachable]).toEqual(['loose', 'c']);
    const g = M.layoutGraph(d);
    expect(g.edges).toContainEqual({ from: 'b', to: 'a', back: true });
    expect(g.edges).toContainEqual({ from: 'c', to: 'nowhere', missing: true });
    expect(M.layoutGraph(def('none', { a: { type: 'exit' } })).layers).toEqual([['a']]);
  });

  it('counts entered, succeeded, failed and waiting from the executions by status', () => {
    expect(M.stepCounts({ SUCCEEDED: 3, FAILED: 1, RUNNING: 2, PENDING: 1, SKIPPED: 1, INTERRUPTED: 2 })).toEqual({ entered: 10, succeeded: 3, failed: 1, waiting: 3, skipped: 1, interrupted: 2 });
    expect(M.stepCounts(undefined)).toEqual({ entered: 0, succeeded: 0, failed: 0, waiting: 0, skipped: 0, interrupted: 0 });
  });

  it('says what a step does in a few words', () => {
    expect(M.stepSummary({ type: 'push', template: 'order-shipped' })).toBe('template order-shipped');
    expect(M.stepSummary({ type: 'webhook', method: 'PUT', url: 'https://hooks.example.com:8443/a?b=c' })).toBe('PUT hooks.example.com:8443');
    expect(M.stepSummary({ type: 'wait', seconds: 90_000 })).toBe('wait 1 d 1 h');
    expect(M.stepSummary({ type: 'wait', timeOfDay: '09:30' })).toBe('until 09:30, the profile’s time');
    expect(M.stepSummary({ type: 'wait', event: { eventName: 'purchase', timeoutSeconds: 3_600 } })).toBe('for purchase, at most 1 h');
    expect(M.stepSummary({ type: 'condition', conditions: [{ attribute: 'context.plan', operator: 'in', values: ['gold', 5] }, { attribute: 'x', operator: 'exists' }] })).toBe('context.plan in gold, 5 (and 1 more)');
    expect(M.stepSummary({ type: 'profile-update', set: { a: 1 }, addTags: ['vip'] })).toBe('set a; tag vip');
    expect(M.stepSummary({ type: 'in-app', message: 'ask-review', periodSeconds: 604_800, saveToInbox: true })).toBe('message ask-review for 7 d, and the inbox');
  });

  it('reads a refusal’s violations and the editor’s text', () => {
    expect(M.violationList('steps.a: makes a cycle (a -> b -> a): a run must end; start: names no step (x)')).toEqual(['steps.a: makes a cycle (a -> b -> a): a run must end', 'start: names no step (x)']);
    expect(M.parseFile('{"key": "a"}')).toEqual({ file: { key: 'a' } });
    expect(M.parseFile('[1]')).toEqual({ error: expect.stringContaining('JSON object') });
    expect(M.parseFile('{')).toEqual({ error: expect.stringContaining('not valid JSON') });
  });
});
