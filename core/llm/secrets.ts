/**
 * API keys must never reach a log, an error message or the usage table. Everything the client says
 * about a request passes through `redact`, which removes the configured key (and any bearer token or
 * URL credentials a server might echo back) wherever it appears.
 */

export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) {
    // Very short "keys" (Ollama's placeholder "ollama") are not secrets and would shred normal text.
    if (s && s.length >= 8) out = out.split(s).join('***');
  }
  return out
    .replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, '$1***')
    .replace(/\b(sk|pk|rk)-[A-Za-z0-9_-]{12,}/g, '$1-***')
    .replace(/(\/\/)[^/@\s:]+:[^/@\s]+@/g, '$1***@');
}

/** A base URL as it may be shown: without user:password credentials. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return redact(url, []);
  }
}

/** The last four characters, enough to tell two keys apart. */
export function keyHint(key: string | undefined): string | null {
  if (!key) return null;
  return key.length <= 8 ? '…' : `…${key.slice(-4)}`;
}
