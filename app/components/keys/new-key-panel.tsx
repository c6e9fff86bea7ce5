import { useEffect, useRef } from 'react';
import { CopyButton } from '../copy-button.js';
import { ApiSnippets } from '../playground/api-snippets.js';
import type { CreatedApiKey } from './types.js';

interface Props {
  created: Pick<CreatedApiKey, 'name' | 'mode' | 'key' | 'bonus_credits_granted'>;
  /** This server's origin, for the ready-to-run snippets. */
  origin: string;
}

/** The one moment the full key is visible: copy it now, it is never shown again. */
export function NewKeyPanel({ created, origin }: Props) {
  const panel = useRef<HTMLElement>(null);
  // Bring keyboard and screen-reader users straight to the key they just asked for.
  useEffect(() => panel.current?.focus(), []);

  return (
    <section ref={panel} tabIndex={-1} className="card card--highlight new-key" aria-labelledby="new-key-title">
      <h2 id="new-key-title">
        Your new {created.mode} key “{created.name}”
      </h2>
      <p className="new-key__warning">
        <strong>Copy this key now.</strong> For your security it will not be shown again. If you lose it, revoke it and
        create a new one.
      </p>
      <label htmlFor="new-key-value" className="field__label">
        Secret key
      </label>
      <div className="copy-row">
        <input
          id="new-key-value"
          className="input input--code"
          readOnly
          value={created.key}
          spellCheck={false}
          autoComplete="off"
          onFocus={(event) => event.currentTarget.select()}
        />
        <CopyButton targetId="new-key-value" label="Copy key" />
      </div>
      {created.bonus_credits_granted > 0 ? (
        <p className="new-key__bonus">
          {created.bonus_credits_granted} free credits added to your account, enough to stage{' '}
          {created.bonus_credits_granted} images.
        </p>
      ) : null}
      <h3 className="new-key__try">Try it now</h3>
      <p>
        Stage a photo with this key (1 credit), or try it without code in the <a href="/playground">playground</a>.
      </p>
      <ApiSnippets
        idPrefix="new-key"
        partialKey={false}
        origin={origin}
        apiKey={created.key}
        style="modern"
        roomType="living_room"
      />
    </section>
  );
}
