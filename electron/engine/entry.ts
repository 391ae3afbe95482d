/**
 * Entry of the engine's utility process (`utilityProcess.fork` from main, built to
 * out/main/engine.js). Opens the engine on the data folder main chose and serves the protocol
 * over `process.parentPort`. Nothing here touches a window.
 */
import { openDefaultEngine } from '../../core/api/open';
import { takeHostKey } from '../main/key-vault';
import { serveEngine } from './serve';
import type { HostMessage, HostRequest, MessageEnd } from './protocol';

const HOME_FLAG = '--nemori-home=';
const home = process.argv.find((a) => a.startsWith(HOME_FLAG))?.slice(HOME_FLAG.length);
const parentPort = process.parentPort;
// Read once and removed from the environment, so nothing this process starts inherits it.
const llmKeyFromHost = takeHostKey(process.env);

const channel: MessageEnd<HostRequest, HostMessage> = {
  post: (message) => parentPort.postMessage(message),
  listen(handler) {
    const onMessage = (e: Electron.MessageEvent) => handler(e.data as HostRequest);
    parentPort.on('message', onMessage);
    return () => void parentPort.off('message', onMessage);
  },
};

serveEngine({
  channel,
  open: async (report) => {
    if (!home) throw new Error(`the engine process was started without ${HOME_FLAG}`);
    return openDefaultEngine({
      home,
      embeddings: 'auto',
      scheduleForgetting: true,
      llmKeyFromHost,
      // First run: the model downloads here; the window shows its progress.
      onModelProgress: report,
      warn: (m) => console.warn(`[nemori engine] ${m}`),
    });
  },
  log: (message, error) => console.error(`[nemori engine] ${message}:`, error),
  onClosed: () => process.exit(0),
});
