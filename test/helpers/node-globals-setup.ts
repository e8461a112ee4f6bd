/**
 * vitest setupFile of both projects: every test file starts with Node's own
 * `Request` and `Response`. A worker runs its files one after another in one process
 * (vitest.config.ts `isolate: false`), and @hono/node-server replaces both globals with its
 * lighter classes when a file starts a server. A later file's in-process `app.request` would
 * then get that lighter `Response`, which drops a header set after the answer was made (the
 * request id, `Cache-Control`) as soon as its body is read: the served executable never reads
 * its answers that way, but tests do.
 */
import { afterAll } from 'vitest';

const KEY = Symbol.for('engage.test.nodeGlobals');
type Saved = { Request: typeof Request; Response: typeof Response };
const g = globalThis as typeof globalThis & { [KEY]?: Saved };
// The first file of the worker saves them, before any server has started.
const saved = (g[KEY] ??= { Request: globalThis.Request, Response: globalThis.Response });

afterAll(() => {
  globalThis.Request = saved.Request;
  globalThis.Response = saved.Response;
});
