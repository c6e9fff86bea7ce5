import { useEffect, useId, useRef, useState } from 'react';
import { useHydrated } from '../utils/use-hydrated.js';

interface Props {
  before: { src: string; alt: string };
  after: { src: string; alt: string };
  width: number;
  height: number;
  /** Names what is compared, for the slider's label. */
  label: string;
}

/**
 * Before and after on top of each other, split where the slider says (arrow keys move it). The split is set as a
 * CSS variable through the DOM, not an inline style attribute, so a strict Content-Security-Policy holds.
 */
export function CompareSlider({ before, after, width, height, label }: Props) {
  const hydrated = useHydrated();
  const [reveal, setReveal] = useState(50);
  const frame = useRef<HTMLDivElement>(null);
  const id = useId();
  useEffect(() => {
    frame.current?.style.setProperty('--reveal', `${reveal}%`);
  }, [reveal]);
  return (
    <div>
      <div className="compare" ref={frame}>
        <img src={before.src} alt={before.alt} width={width} height={height} />
        <div className="compare__after">
          <img src={after.src} alt={after.alt} width={width} height={height} />
        </div>
        <span className="compare__divider" aria-hidden="true" />
        <span className="compare__tag compare__tag--before" aria-hidden="true">
          Before
        </span>
        <span className="compare__tag compare__tag--after" aria-hidden="true">
          After
        </span>
      </div>
      {hydrated ? (
        <>
          <label htmlFor={id} className="visually-hidden">
            {label}: how much of the original to show
          </label>
          <input
            id={id}
            className="compare-range"
            type="range"
            min={0}
            max={100}
            value={reveal}
            aria-valuetext={`${reveal}% original, ${100 - reveal}% staged`}
            onChange={(event) => setReveal(Number(event.currentTarget.value))}
          />
        </>
      ) : null}
    </div>
  );
}
