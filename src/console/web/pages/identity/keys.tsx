import { useState } from 'preact/hooks';
import { call } from '../../api';
import { DataTable, usePaged, paged } from '../../ui/data';
import { Notice } from '../../ui/feedback';
import { ConfirmByName, useSubmit } from '../../ui/forms';
import { ErrorBox } from '../../ui/feedback';
import { when } from '../../ui/format';
import { TenantFrame } from './apps-frame';

type KeyState = 'STAGED' | 'ACTIVE' | 'RETIRING' | 'RETIRED' | 'REVOKED';

interface SigningKey {
  keyId: string;
  state: KeyState;
  createdAt: string;
  activatedAt: string | null;
  retiredAt: string | null;
}

/** The lifecycle of spec 03, in order; REVOKED leaves it from any state. */
const LIFECYCLE: KeyState[] = ['STAGED', 'ACTIVE', 'RETIRING', 'RETIRED'];

const MEANING: Record<KeyState, string> = {
  STAGED: 'published in the JWKS, not signing yet',
  ACTIVE: 'signs every new token',
  RETIRING: 'no longer signs; still published while tokens it signed may be in use',
  RETIRED: 'no longer published',
  REVOKED: 'withdrawn: tokens it signed are no longer trusted',
};

/** What a person types to confirm: the start of the key id, shown in the list. */
const shortKid = (kid: string) => kid.slice(0, 8);

/**
 * One key's place in the lifecycle, drawn: the four states left to right, those it went through
 * filled, its own larger, ringed and its label bold (not told by colour alone), a revoked key
 * crossed out after the states it went through. The text beside says the same for screen readers.
 */
export function KeyLifecycle({ state, activated }: { state: KeyState; activated: boolean }) {
  const revoked = state === 'REVOKED';
  // A revoked key left the lifecycle where it was: past ACTIVE if it was ever activated.
  const at = revoked ? (activated ? 2 : 1) : LIFECYCLE.indexOf(state);
  const step = 80;
  const x = (i: number) => 36 + i * step;
  // The same width for every key (room for REVOKED), so the rows' drawings line up.
  const width = x(4) + 36;
  return (
    <svg class="key-lifecycle" viewBox={`0 0 ${width} 58`} role="img" aria-label={`Lifecycle: ${LIFECYCLE.join(', then ')}. This key: ${state}.`}>
      {LIFECYCLE.slice(1).map((s, i) => (
        <g key={s} class={i < (revoked ? at - 1 : at) ? 'kl-edge kl-done' : 'kl-edge'}>
          <line x1={x(i) + 12} y1={20} x2={x(i + 1) - 16} y2={20} />
          <polygon points={`${x(i + 1) - 16},15 ${x(i + 1) - 9},20 ${x(i + 1) - 16},25`} />
        </g>
      ))}
      {LIFECYCLE.map((s, i) => (
        <g key={s} class={i === at && !revoked ? 'kl-node kl-current' : i < at ? 'kl-node kl-done' : 'kl-node'}>
          {i === at && !revoked && <circle class="kl-ring" cx={x(i)} cy={20} r={14} />}
          <circle cx={x(i)} cy={20} r={i === at && !revoked ? 9 : 7} />
          <text x={x(i)} y={52}>
            {s}
          </text>
        </g>
      ))}
      {revoked && (
        <g class="kl-node kl-current kl-revoked">
          <line class="kl-cross" x1={x(4) - 9} y1={11} x2={x(4) + 9} y2={29} />
          <line class="kl-cross" x1={x(4) - 9} y1={29} x2={x(4) + 9} y2={11} />
          <text x={x(4)} y={52}>
            REVOKED
          </text>
        </g>
      )}
    </svg>
  );
}

type Pending = { action: 'activate' | 'retire' | 'revoke'; key: SigningKey };

const ACTIONS = {
  activate: { title: 'Activate a signing key', button: 'Activate key', done: 'active' },
  retire: { title: 'Retire a signing key', button: 'Retire key', done: 'retired' },
  revoke: { title: 'Revoke a signing key', button: 'Revoke key', done: 'revoked' },
} as const;

/** A tenant's signing keys, each with its state drawn: stage a key, activate a staged one, retire a staged or retiring one, revoke any but the active one. */
export function SigningKeyList({ tenantId }: { tenantId: string }) {
  const list = usePaged<SigningKey, 'GET /identity/admin/tenants/{tenantId}/signing-keys'>('GET /identity/admin/tenants/{tenantId}/signing-keys', { params: { tenantId } });
  const [pending, setPending] = useState<Pending | undefined>();
  const [notice, setNotice] = useState('');
  const stage = useSubmit(async () => {
    const k = await call<{ keyId: string }, 'POST /identity/admin/tenants/{tenantId}/signing-keys'>('POST /identity/admin/tenants/{tenantId}/signing-keys', { params: { tenantId }, body: {} });
    setNotice(`Key ${k.keyId} is staged: it is published now, and signs once activated.`);
    list.reload();
  });
  return (
    <TenantFrame
      tenantId={tenantId}
      title="Signing keys"
      actions={
        <button type="button" class="primary" disabled={stage.busy} onClick={() => void stage.run()}>
          {stage.busy ? 'Working…' : 'Stage a new key'}
        </button>
      }
    >
      <p class="muted">
        A key goes from STAGED (published, not signing) to ACTIVE (signing) to RETIRING (published while its tokens may be in use) to RETIRED. Activating a staged key makes the active one
        retiring. Stage a key some time before activating it, so relying parties have fetched it.
      </p>
      {stage.error && <ErrorBox error={stage.error} />}
      {notice && <Notice>{notice}</Notice>}
      <DataTable
        caption="Signing keys"
        {...paged(list)}
        rowKey={(k) => k.keyId}
        columns={[
          { header: 'Key id', cell: (k) => <code>{k.keyId}</code> },
          {
            header: 'State',
            cell: (k) => (
              <div class="key-state">
                <KeyLifecycle state={k.state} activated={!!k.activatedAt} />
                <p>
                  <strong>{k.state}</strong>: {MEANING[k.state]}
                </p>
              </div>
            ),
          },
          {
            header: 'Dates',
            cell: (k) => (
              <span>
                Created {when(k.createdAt)}
                {k.activatedAt && <><br />Activated {when(k.activatedAt)}</>}
                {k.retiredAt && <><br />Retired {when(k.retiredAt)}</>}
              </span>
            ),
          },
          {
            header: 'Actions',
            cell: (k) => (
              <div class="row-actions">
                {k.state === 'STAGED' && (
                  <button type="button" onClick={() => setPending({ action: 'activate', key: k })} aria-label={`Activate key ${k.keyId}`}>
                    Activate
                  </button>
                )}
                {(k.state === 'STAGED' || k.state === 'RETIRING') && (
                  <button type="button" class="danger" onClick={() => setPending({ action: 'retire', key: k })} aria-label={`Retire key ${k.keyId}`}>
                    Retire
                  </button>
                )}
                {(k.state === 'STAGED' || k.state === 'RETIRING' || k.state === 'RETIRED') && (
                  <button type="button" class="danger" onClick={() => setPending({ action: 'revoke', key: k })} aria-label={`Revoke key ${k.keyId}`}>
                    Revoke
                  </button>
                )}
                {k.state === 'ACTIVE' && <span class="muted">Replace it by activating a staged key.</span>}
              </div>
            ),
          },
        ]}
      />
      <ConfirmByName
        open={!!pending}
        title={pending ? ACTIONS[pending.action].title : ''}
        name={pending ? shortKid(pending.key.keyId) : ''}
        consequence={
          pending?.action === 'activate'
            ? `Key ${pending.key.keyId} signs every new token from now on; the active key becomes RETIRING. Relying parties that have not fetched the JWKS since it was staged refuse its tokens until they do.`
            : pending?.action === 'retire'
              ? `Key ${pending.key.keyId} is no longer published: tokens it signed stop being accepted. This cannot be undone.`
              : `Key ${pending?.key.keyId ?? ''} is withdrawn at once: no longer published, and every token it signed is refused from now on. Use it after a compromise. This cannot be undone.`
        }
        action={pending ? ACTIONS[pending.action].button : ''}
        onClose={() => setPending(undefined)}
        onConfirm={async () => {
          if (!pending) return;
          const params = { tenantId, keyId: pending.key.keyId };
          if (pending.action === 'activate') await call('POST /identity/admin/tenants/{tenantId}/signing-keys/{keyId}/activation', { params });
          else if (pending.action === 'retire') await call('POST /identity/admin/tenants/{tenantId}/signing-keys/{keyId}/retirement', { params });
          else await call('POST /identity/admin/tenants/{tenantId}/signing-keys/{keyId}/revocation', { params });
          setNotice(`Key ${pending.key.keyId} is ${ACTIONS[pending.action].done}.`);
          setPending(undefined);
          list.reload();
        }}
      />
    </TenantFrame>
  );
}
