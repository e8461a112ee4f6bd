import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure } from '../api';
import { ErrorBox } from './feedback';

/** A submit handler's state: busy while it runs, its failure shown in words. */
export function useSubmit<A extends unknown[]>(action: (...args: A) => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiFailure | Error | undefined>();
  const run = async (...args: A) => {
    setBusy(true);
    setError(undefined);
    try {
      await action(...args);
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, setError };
}

let fieldIds = 0;

/** A labelled input with an optional hint (linked by aria-describedby). */
export function Field(props: { label: string; hint?: string; children: (attrs: { id: string; 'aria-describedby'?: string }) => ComponentChildren }) {
  const [id] = useState(() => `f${++fieldIds}`);
  const hintId = props.hint ? `${id}-hint` : undefined;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.children({ id, 'aria-describedby': hintId })}
      {props.hint && (
        <p class="hint" id={hintId}>
          {props.hint}
        </p>
      )}
    </div>
  );
}

/** A form whose submit runs `onSubmit`, with its error shown above the buttons. */
export function Form(props: { label: string; onSubmit: () => Promise<void>; submit: string; children: ComponentChildren; extra?: ComponentChildren }) {
  const { busy, error, run } = useSubmit(props.onSubmit);
  return (
    <form
      aria-label={props.label}
      onSubmit={(e) => {
        e.preventDefault();
        void run();
      }}
    >
      {props.children}
      {error && <ErrorBox error={error} />}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Working…' : props.submit}
        </button>
        {props.extra}
      </div>
    </form>
  );
}

/** Controlled text input helper: value and onInput for a string state. */
export const bind = (value: string, set: (v: string) => void): Pick<JSX.InputHTMLAttributes<HTMLInputElement>, 'value' | 'onInput'> => ({
  value,
  onInput: (e) => set((e.target as HTMLInputElement).value),
});

/**
 * A destructive action confirmed by typing the object's name (a modal dialog: focus moves into
 * it, Escape closes it).
 */
export function ConfirmByName(props: { open: boolean; title: string; name: string; consequence: string; action: string; onConfirm: () => Promise<void>; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState('');
  const { busy, error, run } = useSubmit(props.onConfirm);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) {
      setTyped('');
      d.showModal();
    }
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} aria-labelledby="confirm-title" onClose={props.onClose} class="confirm">
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          if (typed === props.name) void run();
        }}
      >
        <h2 id="confirm-title">{props.title}</h2>
        <p>{props.consequence}</p>
        <Field label={`Type ${props.name} to confirm`}>{(a) => <input {...a} {...bind(typed, setTyped)} autoComplete="off" spellcheck={false} />}</Field>
        {error && <ErrorBox error={error} />}
        <div class="actions">
          <button type="submit" class="danger" disabled={typed !== props.name || busy}>
            {busy ? 'Working…' : props.action}
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
