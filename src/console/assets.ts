/** One file of the web console (issue 25): a script or a stylesheet named by its content hash. */
export interface ConsoleAsset {
  name: string;
  type: string;
  /** Base64 SHA-256 of the body (the script's Subresource Integrity). */
  sha256: string;
  body: Buffer;
  gzip: Buffer;
}

type Raw = { name: string; type: string; sha256: string; body: string; gzip: string };

/** Filled in by build.mjs (esbuild define): the executable carries the console, nothing is built or fetched at run time. */
declare const __ENGAGE_CONSOLE__: Raw[] | undefined;

let loaded: Promise<ConsoleAsset[]> | undefined;

/**
 * The console's assets: embedded in the executable, or built once from src/console/web with
 * esbuild (tests and `npm run dev`, where esbuild is installed).
 */
export function consoleAssets(): Promise<ConsoleAsset[]> {
  loaded ??= (async () => {
    const raw = typeof __ENGAGE_CONSOLE__ !== 'undefined' ? __ENGAGE_CONSOLE__ : await buildFromSource();
    return raw.map((a) => ({ name: a.name, type: a.type, sha256: a.sha256, body: Buffer.from(a.body, 'base64'), gzip: Buffer.from(a.gzip, 'base64') }));
  })();
  loaded.catch(() => (loaded = undefined));
  return loaded;
}

async function buildFromSource(): Promise<Raw[]> {
  // build.mjs drops this block from the executable (esbuild dropLabels), which never gets here:
  // the bundle holds no import(), so the SEA code cache can be on (DESIGN.md).
  // eslint-disable-next-line no-unused-labels -- the label is build.mjs's (dropLabels)
  SOURCE_ONLY: {
    // A computed specifier: the bundler leaves it alone.
    const builder = new URL('./web/build.mjs', import.meta.url).href;
    const mod = (await import(builder)) as { buildConsole: () => Promise<Raw[]> };
    return mod.buildConsole();
  }
  throw new Error('this build embeds no console');
}
