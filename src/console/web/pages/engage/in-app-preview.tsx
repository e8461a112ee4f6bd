import type { LayoutDraft } from './in-app-model';

/** An image URL's host, for the placeholder (the console loads no image: its policy allows none, and a URL typed here should not be fetched by the operator's browser). */
function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/**
 * One LAYOUT as a device shows it over the app (issue 27 "console pages"): a phone-sized frame
 * with the message's card (image, title, body, up to three buttons), drawn from what is typed, so
 * it changes with every keystroke. The buttons are drawn, not real (a reader's Tab never stops on
 * them); the caption says what each does.
 */
export function LayoutPreview(props: { layout: LayoutDraft; where: string; isDefault: boolean }) {
  const { layout: l, where } = props;
  const empty = l.title === '' && l.body === '';
  return (
    <figure class="phone in-app-phone" aria-label={`Preview of ${where}`}>
      <div class="phone-screen in-app-screen">
        <p class="phone-clock" aria-hidden="true">
          9:41
        </p>
        <div class="in-app-card">
          {l.imageUrl && (
            <p class="in-app-image">
              Image from <span>{hostOf(l.imageUrl)}</span>
            </p>
          )}
          <p class="in-app-title">{l.title || (empty ? 'Title' : '')}</p>
          <p class="in-app-body">{l.body || (empty ? 'The body of the message.' : '')}</p>
          {l.buttons.length > 0 && (
            <div class="in-app-buttons">
              {l.buttons.map((b, i) => (
                <span key={i} class={i === 0 ? 'in-app-button primary' : 'in-app-button'}>
                  {b.label || `Button ${i + 1}`}
                </span>
              ))}
            </div>
          )}
        </div>
      </div>
      <figcaption>
        {where}
        {props.isDefault && ' (default locale)'}
        {l.buttons.map((b, i) => (
          <span key={i} class="in-app-action">
            <br />
            {b.label || `Button ${i + 1}`}: {b.action === 'DISMISS' ? 'closes the message' : b.deepLink ? <>opens <code>{b.deepLink}</code></> : 'opens a deep link (none typed)'}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
