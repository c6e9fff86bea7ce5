import { createContext, useContext } from 'react';

/**
 * The Content-Security-Policy nonce of this response (server/http/security-headers.ts). Set by entry.server.tsx; in
 * the browser it reads as '' (browsers hide nonces from scripts), which is fine: only server HTML needs it.
 */
export const NonceContext = createContext('');

export const useNonce = () => useContext(NonceContext);
