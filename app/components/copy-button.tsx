import { useEffect, useRef, useState } from 'react';
import { useHydrated } from '../utils/use-hydrated.js';

interface Props {
  /** The id of the input or textarea whose value is copied (and selected when the clipboard is out of reach). */
  targetId: string;
  label?: string;
}

type CopyState = 'idle' | 'copied' | 'selected';

/**
 * Copies the target's text with the Clipboard API. Where that is unavailable (plain http, older browsers, denied
 * permission) the text is selected instead so the visitor can press Ctrl/⌘+C. Hidden until JavaScript runs.
 */
export function CopyButton({ targetId, label = 'Copy' }: Props) {
  const hydrated = useHydrated();
  const [state, setState] = useState<CopyState>('idle');
  const resetTimer = useRef<ReturnType<typeof setTimeout>>();

  useEffect(() => () => clearTimeout(resetTimer.current), []);

  async function copy() {
    const target = document.getElementById(targetId);
    if (!(target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement)) return;
    let next: CopyState = 'selected';
    try {
      if (!navigator.clipboard) throw new Error('Clipboard API unavailable');
      await navigator.clipboard.writeText(target.value);
      next = 'copied';
    } catch {
      target.focus();
      target.select();
      try {
        // Deprecated, but the only clipboard access some browsers give outside secure contexts.
        if (document.execCommand('copy')) next = 'copied';
      } catch {
        // Leave the text selected for a manual copy.
      }
    }
    setState(next);
    clearTimeout(resetTimer.current);
    resetTimer.current = setTimeout(() => setState('idle'), 4000);
  }

  if (!hydrated) return null;
  return (
    <>
      <button type="button" className="button button--primary" onClick={copy}>
        {state === 'copied' ? 'Copied' : label}
      </button>
      <span className="copy-status" aria-live="polite">
        {state === 'copied'
          ? 'Copied to the clipboard.'
          : state === 'selected'
            ? 'Selected: press Ctrl+C (⌘C on a Mac) to copy.'
            : ''}
      </span>
    </>
  );
}
