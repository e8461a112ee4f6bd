import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { ApiFailure } from '../api';

/** An API refusal in words, with its code for a search or a support request. */
export function ErrorBox({ error }: { error: ApiFailure | Error }) {
  const code = (error as ApiFailure).code;
  return (
    <div class="error-box" role="alert">
      <p>{error.message}</p>
      {code && <p class="muted">Error code: <code>{code}</code></p>}
    </div>
  );
}

/** A short confirmation of what just happened, announced to screen readers. */
export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

/**
 * A secret shown once: a warning that it cannot be shown again, the value in a read-only
 * field and a copy button.
 */
export function SecretOnce({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  const id = `secret-${label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <div class="secret" role="group" aria-labelledby={`${id}-label`}>
      <p class="warning">
        <strong>Copy this now.</strong> It is shown only once: the server keeps only a digest and cannot show it again.
      </p>
      <label id={`${id}-label`} for={id}>
        {label}
      </label>
      <div class="secret-row">
        <input id={id} readOnly value={value} onFocus={(e) => (e.target as HTMLInputElement).select()} />
        <button
          type="button"
          onClick={async () => {
            await navigator.clipboard.writeText(value);
            setCopied(true);
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <span role="status" class="visually-hidden">
        {copied ? `${label} copied to the clipboard` : ''}
      </span>
    </div>
  );
}
