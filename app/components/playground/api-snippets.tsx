import { CopyButton } from '../copy-button.js';
import { curlSnippet, pythonSnippet, type SnippetRequest } from '../../utils/snippets.js';

interface Props extends SnippetRequest {
  /** Distinguishes the ids when two snippet blocks share a page. */
  idPrefix: string;
  /** True when `apiKey` is only the prefix: say where the full key is. */
  partialKey: boolean;
}

/** The same staging call as curl and as Python `requests`, each with a copy button. */
export function ApiSnippets({ idPrefix, partialKey, ...request }: Props) {
  const blocks = [
    { id: `${idPrefix}-curl`, title: 'curl', text: curlSnippet(request) },
    { id: `${idPrefix}-python`, title: 'Python (requests)', text: pythonSnippet(request) },
  ];
  return (
    <div className="snippets">
      {partialKey ? (
        <p className="field__hint">
          Only the start of your key is shown (<code>{request.apiKey}</code>): paste your full key in its place. Lost
          it? Create a new key under <a href="/keys">Settings → API</a>.
        </p>
      ) : null}
      {blocks.map((block) => (
        <div className="snippet" key={block.id}>
          <label htmlFor={block.id} className="field__label">
            {block.title}
          </label>
          <textarea
            id={block.id}
            className="input input--code snippet__text"
            readOnly
            rows={block.text.split('\n').length}
            value={block.text}
            spellCheck={false}
          />
          <CopyButton targetId={block.id} label={`Copy ${block.title}`} />
        </div>
      ))}
    </div>
  );
}
