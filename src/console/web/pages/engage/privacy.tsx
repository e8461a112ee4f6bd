import { useState } from 'preact/hooks';
import { call } from '../../api';
import { Notice } from '../../ui/feedback';
import { ConfirmByName, Field, Form, bind } from '../../ui/forms';
import { EnvironmentHeader, useEnvironment } from './environments';

type Target = 'external' | 'profile' | 'installation';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const ERASES: Record<Target, string> = {
  external:
    'The profile bound to this external id is erased: its attributes, tags, subscriptions and events, every installation bound to it with its state, operations, push tokens and credentials, and their deliveries. Nothing that names it is kept, so it cannot be looked up afterwards. This cannot be undone.',
  profile:
    'The profile is erased: its attributes, tags, subscriptions and events, every installation bound to it with its state, operations, push tokens and credentials, and their deliveries. Nothing that names it is kept. This cannot be undone.',
  installation:
    'The installation is erased: its state, attributes, subscriptions, operations, push token, deliveries and credentials. The device’s SDK starts over as a new installation. This cannot be undone.',
};
const WHAT: Record<Target, string> = { external: 'the profile with external id', profile: 'the profile', installation: 'the installation' };

/** Privacy requests: erase a profile (by external id or id) or an installation, confirmed by typing what is erased. */
export function PrivacyPage({ environmentId }: { environmentId: string }) {
  const env = useEnvironment(environmentId);
  const [target, setTarget] = useState<{ kind: Target; ref: string } | undefined>();
  const [done, setDone] = useState('');
  const erase = async (t: { kind: Target; ref: string }) => {
    const params = { environmentId };
    if (t.kind === 'external') await call('DELETE /engage/admin/environments/{environmentId}/profiles/external/{externalId}', { params: { ...params, externalId: t.ref } });
    else if (t.kind === 'profile') await call('DELETE /engage/admin/environments/{environmentId}/profiles/{profileId}', { params: { ...params, profileId: t.ref } });
    else await call('DELETE /engage/admin/environments/{environmentId}/installations/{installationId}', { params: { ...params, installationId: t.ref } });
    setTarget(undefined);
    setDone(`Erased ${WHAT[t.kind]} ${t.ref}.`);
  };
  return (
    <>
      <EnvironmentHeader environmentId={environmentId} environment={env.data} title="Privacy erasure" />
      <p>
        Erasure answers a person’s request to be forgotten. It needs the <code>engage.admin.privacy</code> permission, is recorded in the audit trail (without the erased data) and
        cannot be undone.
      </p>
      {done && <Notice>{done}</Notice>}
      <EraseForm title="Erase a profile by external id" submit="Erase by external id…" label="External id" hint="The id your backend knows the person by (what the app signed in with)." kind="external" words={ERASES.external} onAsk={setTarget} />
      <EraseForm title="Erase a profile by id" submit="Erase by profile id…" label="Profile id" hint="The profile’s id, a UUID, as the installation or profile pages show it." kind="profile" words={ERASES.profile} onAsk={setTarget} />
      <EraseForm title="Erase an installation" submit="Erase installation…" label="Installation id" hint="The installation’s id, a UUID." kind="installation" words={ERASES.installation} onAsk={setTarget} />
      {target && (
        <ConfirmByName
          open
          title={`Erase ${WHAT[target.kind]} ${target.ref}`}
          name={target.ref}
          consequence={ERASES[target.kind]}
          action="Erase"
          onClose={() => setTarget(undefined)}
          onConfirm={() => erase(target)}
        />
      )}
    </>
  );
}

function EraseForm(props: { title: string; submit: string; label: string; hint: string; kind: Target; words: string; onAsk: (t: { kind: Target; ref: string }) => void }) {
  const [ref, setRef] = useState('');
  const uuid = props.kind !== 'external';
  return (
    <section aria-labelledby={`erase-${props.kind}`}>
      <h2 id={`erase-${props.kind}`}>{props.title}</h2>
      <p class="muted">{props.words}</p>
      <Form
        label={props.title}
        submit={props.submit}
        onSubmit={async () => {
          const v = ref.trim();
          if (uuid && !UUID.test(v)) throw new Error(`${v} is not an id: a UUID such as 0b6f6a5e-3a4e-4c8e-9a51-2f1d6c1b7e10.`);
          props.onAsk({ kind: props.kind, ref: uuid ? v.toLowerCase() : v });
        }}
      >
        <Field label={props.label} hint={props.hint}>
          {(a) => <input {...a} {...bind(ref, setRef)} required maxLength={255} autoComplete="off" spellcheck={false} />}
        </Field>
      </Form>
    </section>
  );
}
