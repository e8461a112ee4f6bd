import { render, type ComponentChild } from 'preact';
import './console.css';
import { boot, signInAgain, SignInError } from './auth';
import { Layout } from './ui/layout';
import { config } from './config';
import { match, useRoute } from './router';
import { identityNav, identityRoutes } from './pages/identity';
import { engageNav, engageRoutes } from './pages/engage';
import type { PageRoute } from './pages/registry';

const routes: PageRoute[] = [...identityRoutes, ...engageRoutes];
const nav = [...identityNav, ...engageNav];

function find(path: string): { route: PageRoute; params: Record<string, string> } | undefined {
  for (const route of routes) {
    const params = match(route.pattern, path);
    if (params) return { route, params };
  }
  return undefined;
}

function App() {
  let { path } = useRoute();
  if (path === '/' || path === '') {
    // The root is the identity overview, its address replaced at once: a navigation queued from
    // here came before this component listened, and left a blank page (after "Sign in again").
    history.replaceState(null, '', `${config.base}/identity`);
    path = '/identity';
  }
  const found = find(path);
  if (!found) {
    return (
      <Layout nav={nav} current={path} title="Not found">
        <h1>Not found</h1>
        <p>The console has no page at this address.</p>
      </Layout>
    );
  }
  const title = found.route.title(found.params);
  return (
    <Layout nav={nav} current={path} title={title}>
      {/* A page component is re-created for other parameters (its state belongs to one object). */}
      <div key={path}>{found.route.render(found.params)}</div>
    </Layout>
  );
}

function SignedOut() {
  document.title = 'Signed out · engage console';
  return (
    <main class="centered">
      <h1>You are signed out</h1>
      <p>Your tokens were revoked and your session at the sign-in service ended.</p>
      <button type="button" class="primary" onClick={() => void signInAgain()}>
        Sign in again
      </button>
    </main>
  );
}

function Failed({ error }: { error: Error }) {
  document.title = 'Sign-in failed · engage console';
  return (
    <main class="centered">
      <h1>The sign-in did not complete</h1>
      <p role="alert">{error.message}</p>
      {error instanceof SignInError && (
        <p class="muted">
          Error code: <code>{error.code}</code>
        </p>
      )}
      <button type="button" class="primary" onClick={() => void signInAgain()}>
        Sign in again
      </button>
    </main>
  );
}

const root = document.getElementById('app')!;
// The server's "Loading…" line goes once the console renders.
const show = (node: ComponentChild) => {
  root.textContent = '';
  render(node, root);
};
boot().then(
  (state) => {
    if (state.kind === 'ready') show(<App />);
    else if (state.kind === 'signed-out') show(<SignedOut />);
  },
  (error: Error) => show(<Failed error={error} />),
);
