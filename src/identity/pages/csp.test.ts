import { describe, expect, it } from 'vitest';
import { pageHeaders, sourceOf } from './csp';
import { esc, html } from './html';

describe('page CSP', () => {
  it('allows form posts to ourselves and to the redirect target only', () => {
    const csp = pageHeaders(['https://rp.example:8443/cb?x=1', 'com.example.app:/cb', 'https://rp.example:8443/other'])['Content-Security-Policy'];
    expect(csp).toContain("form-action 'self' https://rp.example:8443 com.example.app:;");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it('drops targets that cannot be a source expression', () => {
    expect(sourceOf('not a url')).toBeUndefined();
    expect(sourceOf('http://127.0.0.1:9/cb')).toBe('http://127.0.0.1:9');
  });
});

describe('html', () => {
  it('escapes interpolations, keeps nested fragments', () => {
    expect(esc(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect(html`<p>${'<b>'}${html`<i>${'&'}</i>`}</p>`.value).toBe('<p>&lt;b&gt;<i>&amp;</i></p>');
  });
});

describe('renderPage', () => {
  it('escapes every value that comes from clients, users or the request', async () => {
    const { renderPage } = await import('./templates');
    const evil = '"><script>alert(1)</script>';
    const page = renderPage(
      { issuerPath: '/t/acme', tenantName: 'acme' },
      { view: 'login', interactionId: evil, csrf: evil, clientName: evil, email: evil, error: evil },
    );
    expect(page).not.toContain('<script>');
    expect(page).toContain('&quot;&gt;&lt;script&gt;');
  });
});
