import { createHash } from 'node:crypto';

/** The one stylesheet of the sign-in pages, inlined and allowed by its CSP hash. */
export const STYLES = `
:root{color-scheme:light;--ink:#1b1f24;--muted:#5b6470;--line:#d9dee5;--bg:#f3f5f8;--card:#fff;--brand:#2f5bd3;--brand-ink:#fff;--brand-dark:#2449ad;--danger:#b42318;--danger-bg:#fef3f2;--focus:#94b1ff}
*{box-sizing:border-box}
html,body{margin:0;padding:0}
body{min-height:100vh;display:flex;flex-direction:column;align-items:center;justify-content:flex-start;background:var(--bg);color:var(--ink);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;padding:12vh 16px 32px}
main{width:100%;max-width:400px;background:var(--card);border:1px solid var(--line);border-radius:12px;box-shadow:0 1px 2px rgba(16,24,40,.05),0 8px 24px rgba(16,24,40,.06);padding:32px}
.brand{display:flex;align-items:center;gap:10px;margin:0 0 24px;color:var(--muted);font-size:14px;font-weight:600;letter-spacing:.02em}
.mark{display:inline-flex;align-items:center;justify-content:center;width:28px;height:28px;border-radius:8px;background:var(--brand);color:var(--brand-ink);font-weight:700;font-size:15px}
h1{font-size:22px;line-height:1.3;margin:0 0 6px;font-weight:650}
.lead{margin:0 0 24px;color:var(--muted)}
.lead strong{color:var(--ink);font-weight:600}
label{display:block;font-size:14px;font-weight:600;margin:0 0 6px}
.field{margin:0 0 18px}
.check{display:flex;flex-wrap:wrap;align-items:center;gap:4px 8px}
.check input{width:18px;height:18px;margin:0}
.check label{margin:0;font-weight:500}
.check .hint{flex-basis:100%;margin:0;color:var(--muted);font-size:13px}
input[type=email],input[type=password],input[type=text]{width:100%;font:inherit;padding:10px 12px;border:1px solid var(--line);border-radius:8px;background:#fff;color:var(--ink)}
input:focus-visible,button:focus-visible{outline:3px solid var(--focus);outline-offset:1px}
input[aria-invalid=true]{border-color:var(--danger)}
button{font:inherit;font-weight:600;cursor:pointer;border-radius:8px;padding:10px 16px;border:1px solid transparent}
.primary{width:100%;background:var(--brand);color:var(--brand-ink)}
.primary:hover{background:var(--brand-dark)}
.secondary{width:100%;background:#fff;color:var(--ink);border-color:var(--line)}
.secondary:hover{background:var(--bg)}
.actions{display:flex;gap:12px;margin-top:24px}
.actions button{flex:1}
.error{display:flex;gap:8px;margin:0 0 20px;padding:12px 14px;border:1px solid #fecdca;border-radius:8px;background:var(--danger-bg);color:var(--danger);font-size:14px}
.scopes{list-style:none;margin:0;padding:0;border:1px solid var(--line);border-radius:8px}
.scopes li{padding:12px 14px;border-top:1px solid var(--line)}
.scopes li:first-child{border-top:0}
.scopes .what{display:block;font-weight:600}
.scopes .detail{display:block;color:var(--muted);font-size:14px}
.accounts{list-style:none;margin:0 0 16px;padding:0}
.accounts li{margin:0 0 8px}
.account{width:100%;display:flex;align-items:center;gap:12px;text-align:left;background:#fff;color:var(--ink);border-color:var(--line);font-weight:500}
.account:hover{background:var(--bg)}
.avatar{flex:none;display:inline-flex;align-items:center;justify-content:center;width:32px;height:32px;border-radius:50%;background:#e4e9f6;color:var(--brand-dark);font-weight:700}
.note{margin:20px 0 0;color:var(--muted);font-size:13px}
form+form{margin-top:12px}
.code{margin:0 0 24px;padding:12px 14px;border:1px dashed var(--line);border-radius:8px;text-align:center;font-size:20px;letter-spacing:.08em}
.codes{columns:2;list-style:none;margin:0 0 20px;padding:12px 14px;border:1px dashed var(--line);border-radius:8px;font-size:15px}
.qr{display:block;width:200px;height:200px;margin:0 auto 16px}
.secret{word-break:break-all;font-size:14px;color:var(--muted)}
section{margin:0 0 28px;padding:0 0 8px;border-bottom:1px solid var(--line)}
section:last-of-type{border-bottom:0}
h2{font-size:17px;margin:0 0 8px}
.ok{margin:0 0 20px;padding:12px 14px;border:1px solid #abefc6;border-radius:8px;background:#ecfdf3;color:#067647;font-size:14px}
footer{margin-top:20px;color:var(--muted);font-size:12px}
`.trim();

export const STYLES_HASH = `'sha256-${createHash('sha256').update(STYLES).digest('base64')}'`;
