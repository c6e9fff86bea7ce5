/** What the fidelity check found changed, as the API reports it: a kind and a box in the photo's pixels. */
export interface FidelityChange {
  kind: string;
  box: [number, number, number, number] | number[];
}

/** Each change kind in words, for the list under the picture and the outlines' labels. */
export const CHANGE_TEXT: Record<string, string> = {
  opening_removed: 'a window, door or archway removed',
  opening_added: 'a window, door or archway added',
  opening_moved: 'a window, door or archway moved or resized',
  wall_moved: 'a wall, corner, beam, ceiling or floor line moved',
  builtin_changed: 'a built-in changed',
  surface_recoloured: 'a wall, floor or ceiling recoloured or re-surfaced',
  unaligned: 'the result could not be lined up with the photo',
};

export function changeText(kind: string): string {
  return CHANGE_TEXT[kind] ?? kind.replaceAll('_', ' ');
}

/**
 * A picture with the changed regions outlined over it, positioned in shares of the photo's size so the outlines
 * follow the picture at any width.
 */
export function ChangeOutlines({
  src,
  alt,
  width,
  height,
  changes,
}: {
  src: string;
  alt: string;
  width: number;
  height: number;
  changes: readonly FidelityChange[];
}) {
  return (
    <figure className="change-outlines">
      <div className="change-outlines__frame">
        <img src={src} alt={alt} width={width} height={height} />
        {changes.map((change, index) => {
          const [x = 0, y = 0, w = 0, h = 0] = change.box;
          return (
            <span
              // biome-ignore lint/suspicious/noArrayIndexKey: the list is fixed for the picture's lifetime
              key={index}
              className="change-outlines__box"
              title={changeText(change.kind)}
              style={{
                left: `${(100 * x) / Math.max(1, width)}%`,
                top: `${(100 * y) / Math.max(1, height)}%`,
                width: `${(100 * w) / Math.max(1, width)}%`,
                height: `${(100 * h) / Math.max(1, height)}%`,
              }}
            >
              <span className="change-outlines__label">{index + 1}</span>
            </span>
          );
        })}
      </div>
      <figcaption>
        <ol className="change-outlines__list">
          {changes.map((change, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the list is fixed for the picture's lifetime
            <li key={index}>{changeText(change.kind)}</li>
          ))}
        </ol>
      </figcaption>
    </figure>
  );
}
