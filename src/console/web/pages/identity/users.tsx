import { useState } from 'preact/hooks';
import { call } from '../../api';
import { Link, href, navigate, useRoute } from '../../router';
import { DataTable, useCall, usePaged, paged } from '../../ui/data';
import { ErrorBox, Notice } from '../../ui/feedback';
import { ConfirmByName, Field, Form, bind, useSubmit } from '../../ui/forms';
import { TenantHeader, useTenant } from './tenants';

export interface User {
  id: string;
  subject: string;
  email: string;
  emailVerified: boolean;
  status: 'ACTIVE' | 'DISABLED';
  createdAt: string;
}

interface SecondFactor {
  enrolled: boolean;
  enrolledAt: string | null;
  pending: boolean;
  recoveryCodesLeft: number;
}

const when = (iso: string) => new Date(iso).toLocaleString();
const statusWords = (u: User) => (u.status === 'ACTIVE' ? 'Active' : 'Disabled: cannot sign in');

/** A tenant's users, oldest first, searched by a part of their email address (the API's `email` filter). */
export function UserList({ tenantId }: { tenantId: string }) {
  const tenant = useTenant(tenantId);
  // The search is in the page's URL (?email=): a reload, a bookmark or the back button keep it.
  const { query } = useRoute();
  const email = query.get('email') ?? '';
  const [typed, setTyped] = useState(email);
  const setEmail = (v: string) => navigate(v ? `${href('/identity/tenants', tenantId, 'users')}?email=${encodeURIComponent(v)}` : href('/identity/tenants', tenantId, 'users'));
  const list = usePaged<User, 'GET /identity/admin/tenants/{tenantId}/users'>('GET /identity/admin/tenants/{tenantId}/users', {
    params: { tenantId },
    query: { email: email || undefined },
  });
  return (
    <>
      <TenantHeader tenantId={tenantId} tenant={tenant.data} title="Users">
        <Link class="button primary" href={href('/identity/tenants', tenantId, 'users', 'new')}>
          Create a user
        </Link>
      </TenantHeader>
      <form
        class="filters"
        role="search"
        aria-label="Search users"
        onSubmit={(e) => {
          e.preventDefault();
          setEmail(typed.trim());
        }}
      >
        <Field label="Email contains" hint="A whole address, a part of it or a domain (@example.com); upper and lower case alike.">
          {(a) => <input {...a} type="search" {...bind(typed, setTyped)} autoComplete="off" spellcheck={false} maxLength={320} />}
        </Field>
        <div class="actions">
          <button type="submit" class="primary">
            Search
          </button>
          {email && (
            <button
              type="button"
              onClick={() => {
                setTyped('');
                setEmail('');
              }}
            >
              Show all users
            </button>
          )}
        </div>
      </form>
      <DataTable
        caption={email ? `Users whose email contains ${email}` : 'Users'}
        {...paged(list)}
        rowKey={(u) => u.id}
        empty={email ? `No user's email contains ${email}.` : 'No user yet.'}
        columns={[
          { header: 'Email', cell: (u) => <Link href={href('/identity/tenants', tenantId, 'users', u.id)}>{u.email}</Link> },
          { header: 'Verified', cell: (u) => (u.emailVerified ? 'Yes' : 'No') },
          { header: 'Status', cell: statusWords },
          { header: 'Created', cell: (u) => when(u.createdAt) },
        ]}
      />
    </>
  );
}

export function UserCreate({ tenantId }: { tenantId: string }) {
  const tenant = useTenant(tenantId);
  const [email, setEmail] = useState('');
  const [verified, setVerified] = useState(false);
  return (
    <>
      <TenantHeader tenantId={tenantId} tenant={tenant.data} title="Create a user" />
      <Form
        label="Create a user"
        submit="Create user"
        onSubmit={async () => {
          const u = await call<User, 'POST /identity/admin/tenants/{tenantId}/users'>('POST /identity/admin/tenants/{tenantId}/users', {
            params: { tenantId },
            body: { email: email.trim(), emailVerified: verified },
          });
          navigate(href('/identity/tenants', tenantId, 'users', u.id));
        }}
      >
        <Field label="Email" hint="The user signs in with it; it is stored in lower case.">
          {(a) => <input {...a} type="email" {...bind(email, setEmail)} required autoComplete="off" spellcheck={false} />}
        </Field>
        <div class="field checkbox">
          <label>
            <input type="checkbox" checked={verified} onChange={(e) => setVerified((e.target as HTMLInputElement).checked)} /> The address is verified (you know it
            belongs to this person)
          </label>
        </div>
        <p class="hint">The user has no password yet: set one on the next page, or mail them a recovery code so they choose their own.</p>
      </Form>
    </>
  );
}

type Confirming = 'delete' | 'second-factor' | undefined;

/** One user: their facts, an edit form, status, password, recovery mail, second factor and deletion. */
export function UserDetail({ tenantId, userId }: { tenantId: string; userId: string }) {
  const tenant = useTenant(tenantId);
  const params = { tenantId, userId };
  const user = useCall<User, 'GET /identity/admin/tenants/{tenantId}/users/{userId}'>('GET /identity/admin/tenants/{tenantId}/users/{userId}', { params });
  const factor = useCall<SecondFactor, 'GET /identity/admin/tenants/{tenantId}/users/{userId}/second-factor'>(
    'GET /identity/admin/tenants/{tenantId}/users/{userId}/second-factor',
    { params },
  );
  const [notice, setNotice] = useState('');
  const [confirming, setConfirming] = useState<Confirming>();
  const u = user.data;
  const done = (words: string) => {
    setNotice(words);
    user.reload();
    factor.reload();
  };
  return (
    <>
      <TenantHeader tenantId={tenantId} tenant={tenant.data} title={u ? `User ${u.email}` : 'User'} />
      <p>
        <Link href={href('/identity/tenants', tenantId, 'users')}>Back to the users</Link>
      </p>
      {user.error && <ErrorBox error={user.error} />}
      {notice && <Notice>{notice}</Notice>}
      {u && (
        <>
          <dl class="facts">
            <dt>Email</dt>
            <dd>{u.email}</dd>
            <dt>Verified</dt>
            <dd>{u.emailVerified ? 'Yes' : 'No'}</dd>
            <dt>Status</dt>
            <dd>{statusWords(u)}</dd>
            <dt>Subject</dt>
            <dd>
              <code>{u.subject}</code>
            </dd>
            <dt>Created</dt>
            <dd>{when(u.createdAt)}</dd>
            <dt>Second factor</dt>
            <dd>{factor.data ? secondFactorWords(factor.data) : factor.error ? factor.error.message : 'Loading…'}</dd>
          </dl>
          <StatusSection tenantId={tenantId} user={u} onDone={done} />
          <EditSection key={`${u.email}|${u.emailVerified}|${u.status}`} tenantId={tenantId} user={u} onDone={done} />
          <PasswordSection tenantId={tenantId} user={u} onDone={done} />
          <RecoverySection tenantId={tenantId} user={u} onDone={done} />
          <section aria-labelledby="mfa-title">
            <h2 id="mfa-title">Second factor</h2>
            <p>
              Resetting removes the user’s authenticator and recovery codes: they then sign in with their password alone and may enrol a new authenticator. Do it
              only once you are sure who asks (a lost phone).
            </p>
            <button type="button" onClick={() => setConfirming('second-factor')} disabled={!factor.data || (!factor.data.enrolled && !factor.data.pending)}>
              Reset second factor
            </button>
          </section>
          <section aria-labelledby="delete-title">
            <h2 id="delete-title">Delete</h2>
            <p>Deleting ends the user’s sessions, grants and tokens at every client, and cannot be undone.</p>
            <button type="button" class="danger" onClick={() => setConfirming('delete')}>
              Delete user
            </button>
          </section>
          <ConfirmByName
            open={confirming !== undefined}
            title={confirming === 'delete' ? `Delete ${u.email}` : `Reset the second factor of ${u.email}`}
            name={u.email}
            consequence={
              confirming === 'delete'
                ? 'The user and everything they hold (sessions, grants, tokens, second factor, upstream links) are removed for good.'
                : 'The authenticator and every recovery code stop working at once; the user signs in with the password alone until they enrol again.'
            }
            action={confirming === 'delete' ? 'Delete user' : 'Reset second factor'}
            onClose={() => setConfirming(undefined)}
            onConfirm={async () => {
              if (confirming === 'delete') {
                await call('DELETE /identity/admin/tenants/{tenantId}/users/{userId}', { params });
                navigate(href('/identity/tenants', tenantId, 'users'));
                return;
              }
              await call('DELETE /identity/admin/tenants/{tenantId}/users/{userId}/second-factor', { params });
              setConfirming(undefined);
              done('The second factor was reset.');
            }}
          />
        </>
      )}
    </>
  );
}

function secondFactorWords(f: SecondFactor): string {
  if (f.enrolled) return `Authenticator enrolled ${f.enrolledAt ? when(f.enrolledAt) : ''}; ${f.recoveryCodesLeft} recovery codes left`;
  if (f.pending) return 'An enrolment was started and not confirmed';
  return 'None';
}

type SectionProps = { tenantId: string; user: User; onDone: (words: string) => void };

const put = (tenantId: string, u: User, body: { email: string; emailVerified?: boolean; status: User['status'] }) =>
  call<User, 'PUT /identity/admin/tenants/{tenantId}/users/{userId}'>('PUT /identity/admin/tenants/{tenantId}/users/{userId}', { params: { tenantId, userId: u.id }, body });

/** Disable (the user cannot sign in; nothing is deleted) or enable again. */
function StatusSection({ tenantId, user: u, onDone }: SectionProps) {
  const { busy, error, run } = useSubmit(async () => {
    const status = u.status === 'ACTIVE' ? 'DISABLED' : 'ACTIVE';
    await put(tenantId, u, { email: u.email, emailVerified: u.emailVerified, status });
    onDone(status === 'DISABLED' ? 'The user is disabled: they cannot sign in.' : 'The user is active again.');
  });
  return (
    <section aria-labelledby="status-title">
      <h2 id="status-title">Status</h2>
      <p>{u.status === 'ACTIVE' ? 'A disabled user cannot sign in or recover a password; nothing of theirs is deleted.' : 'The user is disabled.'}</p>
      {error && <ErrorBox error={error} />}
      <button type="button" disabled={busy} onClick={() => void run()}>
        {u.status === 'ACTIVE' ? 'Disable user' : 'Enable user'}
      </button>
    </section>
  );
}

function EditSection({ tenantId, user: u, onDone }: SectionProps) {
  const [email, setEmail] = useState(u.email);
  const [verified, setVerified] = useState(u.emailVerified);
  const [status, setStatus] = useState<User['status']>(u.status);
  return (
    <section aria-labelledby="edit-title">
      <h2 id="edit-title">Email and status</h2>
      <Form
        label="Edit the user"
        submit="Save user"
        onSubmit={async () => {
          await put(tenantId, u, { email: email.trim(), emailVerified: verified, status });
          onDone('The user was saved.');
        }}
      >
        <Field label="Email" hint="Changing the address clears its verification below; tick it again only if you know the new one belongs to this person.">
          {(a) => (
            <input
              {...a}
              type="email"
              value={email}
              onInput={(e) => {
                const v = (e.target as HTMLInputElement).value;
                setEmail(v);
                // A new address is not verified until someone says so (as the API does when emailVerified is left out).
                setVerified(v.trim().toLowerCase() === u.email ? u.emailVerified : false);
              }}
              required
              autoComplete="off"
              spellcheck={false}
            />
          )}
        </Field>
        <div class="field checkbox">
          <label>
            <input type="checkbox" checked={verified} onChange={(e) => setVerified((e.target as HTMLInputElement).checked)} /> The address is verified
          </label>
        </div>
        <Field label="Status">
          {(a) => (
            <select {...a} value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value as User['status'])}>
              <option value="ACTIVE">Active</option>
              <option value="DISABLED">Disabled: cannot sign in</option>
            </select>
          )}
        </Field>
      </Form>
    </section>
  );
}

function PasswordSection({ tenantId, user: u, onDone }: SectionProps) {
  const [password, setPassword] = useState('');
  return (
    <section aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <Form
        label="Set a password"
        submit="Set password"
        onSubmit={async () => {
          await call('POST /identity/admin/tenants/{tenantId}/users/{userId}/password', { params: { tenantId, userId: u.id }, body: { password } });
          setPassword('');
          onDone('The password was set: the user’s sessions, grants and refresh tokens ended.');
        }}
      >
        <Field label="New password" hint="8 to 1024 characters. Tell it to the user through a safe channel; their sessions end. Prefer a recovery mail.">
          {(a) => <input {...a} type="password" {...bind(password, setPassword)} required minLength={8} maxLength={1024} autoComplete="new-password" />}
        </Field>
      </Form>
    </section>
  );
}

function RecoverySection({ tenantId, user: u, onDone }: SectionProps) {
  const { busy, error, run } = useSubmit(async () => {
    await call('POST /identity/admin/tenants/{tenantId}/users/{userId}/recovery-mail', { params: { tenantId, userId: u.id } });
    onDone(`A recovery code is on its way to ${u.email}, with a link to the page where they choose a new password.`);
  });
  return (
    <section aria-labelledby="recovery-title">
      <h2 id="recovery-title">Recovery mail</h2>
      <p>Mails the user a code and a link to choose a password themselves. Only an active user can recover; one mail a minute per address.</p>
      {error && <ErrorBox error={error} />}
      <button type="button" disabled={busy || u.status !== 'ACTIVE'} onClick={() => void run()}>
        Send recovery mail
      </button>
    </section>
  );
}
