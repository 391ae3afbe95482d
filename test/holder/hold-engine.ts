/**
 * A long-running engine for the holder tests: `node --import tsx hold-engine.ts HOME [APP-VERSION]`.
 * Holds HOME (or uses its holder) the way every front end does, prints one JSON line
 * `{"role","pid"}` once it answers, and closes on SIGTERM or when stdin ends.
 */
import { connectOrOpenEngine } from '../../core/engine/connect.js';
import { engineVersion } from '../../core/engine/holder.js';
import { openEngine } from '../../core/engine/open-engine.js';
import { loopback } from '../../core/http/holder-transport.js';

const [home, app] = process.argv.slice(2);
const engine = await connectOrOpenEngine({
  home: home!,
  transport: loopback,
  open: ({ lock }) => openEngine({ home: home!, embedder: null, lock }),
  ...(app ? { version: { ...engineVersion(), app } } : {}),
});
await engine.ready;
process.stdout.write(`${JSON.stringify({ role: engine.role, pid: engine.holderPid })}\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void engine.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
