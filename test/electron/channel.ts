import type { MessageEnd } from '../../electron/engine/protocol';

/**
 * Two connected ends, like Electron's UtilityProcess and its parentPort: messages are
 * structured-cloned (so anything that would not cross a process boundary fails here too) and
 * delivered asynchronously.
 */
export function channelPair<A, B>(): { main: MessageEnd<B, A> & { sent: A[] }; engine: MessageEnd<A, B> & { sent: B[] } } {
  const toEngine = new Set<(m: A) => void>();
  const toMain = new Set<(m: B) => void>();
  const main = {
    sent: [] as A[],
    post(m: A) {
      main.sent.push(m);
      const copy = structuredClone(m);
      setImmediate(() => toEngine.forEach((l) => l(copy)));
    },
    listen(h: (m: B) => void) {
      toMain.add(h);
      return () => void toMain.delete(h);
    },
  };
  const engine = {
    sent: [] as B[],
    post(m: B) {
      engine.sent.push(m);
      const copy = structuredClone(m);
      setImmediate(() => toMain.forEach((l) => l(copy)));
    },
    listen(h: (m: A) => void) {
      toEngine.add(h);
      return () => void toEngine.delete(h);
    },
  };
  return { main, engine };
}
