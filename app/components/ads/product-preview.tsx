import { useEffect, useState } from 'react';

/**
 * The chosen cut-out standing on the floor of a drawn sample room, before anything is uploaded: the file never
 * leaves the browser for this, and a transparent background shows as the room behind it.
 */
export function ProductPreview({ file, name }: { file: File | null; name: string }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!file) return setUrl(null);
    const objectUrl = URL.createObjectURL(file);
    setUrl(objectUrl);
    return () => URL.revokeObjectURL(objectUrl);
  }, [file]);
  if (!url) return null;
  const label = `Preview: ${name.trim() || 'your product'} in a sample living room`;
  return (
    <figure className="product-preview">
      <div className="product-preview__room">
        <svg viewBox="0 0 400 250" aria-hidden="true" focusable="false" preserveAspectRatio="none">
          <rect width="400" height="170" fill="#ece6dc" />
          <rect x="250" y="30" width="100" height="90" fill="#cfe3f0" stroke="#fff" strokeWidth="6" />
          <line x1="300" y1="30" x2="300" y2="120" stroke="#fff" strokeWidth="4" />
          <rect y="162" width="400" height="8" fill="#fbfaf7" />
          <rect y="170" width="400" height="80" fill="#b89572" />
        </svg>
        <img src={url} alt={label} className="product-preview__item" />
      </div>
      <figcaption className="field__hint">{label}. Only transparent pixels let the room show through.</figcaption>
    </figure>
  );
}
