import { useEffect, useState } from 'react';

let hydrated = false;

/** False during the server render and the first client render, true once React has taken over the page. */
export function useHydrated(): boolean {
  const [isHydrated, setIsHydrated] = useState(hydrated);
  useEffect(() => {
    hydrated = true;
    setIsHydrated(true);
  }, []);
  return isHydrated;
}
