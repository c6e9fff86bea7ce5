import { useEffect, useRef } from 'react';
import { CopyButton } from '../copy-button.js';

/** The one moment the recovery codes are visible: copy or download them now, they are never shown again. */
export function RecoveryCodesPanel({ codes, email }: { codes: readonly string[]; email: string }) {
  const panel = useRef<HTMLElement>(null);
  // Bring keyboard and screen-reader users straight to the codes they must save.
  useEffect(() => panel.current?.focus(), []);
  const text = `Roomstage recovery codes for ${email}\nEach code signs in once in place of an authenticator code.\n\n${codes.join('\n')}\n`;
  return (
    <section
      ref={panel}
      tabIndex={-1}
      className="card card--highlight recovery-codes"
      aria-labelledby="recovery-codes-title"
    >
      <h2 id="recovery-codes-title">Your recovery codes</h2>
      <p className="new-key__warning">
        <strong>Save these codes now.</strong> They are shown only this once. If you lose your phone, each code signs
        you in once instead of a code from the app.
      </p>
      <ol className="recovery-codes__list">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <label htmlFor="recovery-codes-text" className="field__label">
        All codes, to copy
      </label>
      <div className="copy-row">
        <textarea
          id="recovery-codes-text"
          className="input input--code"
          readOnly
          rows={4}
          value={codes.join('\n')}
          spellCheck={false}
          onFocus={(event) => event.currentTarget.select()}
        />
        <CopyButton targetId="recovery-codes-text" label="Copy codes" />
      </div>
      <p>
        {/* A data: link downloads without JavaScript too. */}
        <a
          href={`data:text/plain;charset=utf-8,${encodeURIComponent(text)}`}
          download="roomstage-recovery-codes.txt"
          className="button button--ghost"
        >
          Download the codes (.txt)
        </a>
      </p>
    </section>
  );
}
