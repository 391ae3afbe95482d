import { ipcMain, type IpcMainInvokeEvent } from 'electron';
import {
  BRIDGE_CHANNELS,
  type BridgeInput,
  type BridgeOperation,
  type BridgeOutput,
} from '../shared/bridge';
import { isAppUrl } from './security';

/** One handler per contract operation; the compiler rejects a missing or extra one. */
export type BridgeHandlers = {
  readonly [K in BridgeOperation]: (
    input: BridgeInput<K>,
    event: IpcMainInvokeEvent,
  ) => BridgeOutput<K> | Promise<BridgeOutput<K>>;
};

/**
 * Registers the handlers on their channels. Calls from any frame that is not the app's own
 * page (a navigated-away or embedded frame) are refused. Returns a function that unregisters them.
 */
export function registerBridgeHandlers(handlers: BridgeHandlers, appEntryUrl: string): () => void {
  const operations = Object.keys(BRIDGE_CHANNELS) as BridgeOperation[];
  for (const operation of operations) {
    const handler = handlers[operation] as (input: unknown, event: IpcMainInvokeEvent) => unknown;
    ipcMain.handle(BRIDGE_CHANNELS[operation], (event, input: unknown) => {
      const senderUrl = event.senderFrame?.url ?? '';
      if (!isAppUrl(senderUrl, appEntryUrl)) {
        throw new Error(`Refused "${operation}": the request did not come from the Nemori window.`);
      }
      return handler(input, event);
    });
  }
  return () => {
    for (const operation of operations) ipcMain.removeHandler(BRIDGE_CHANNELS[operation]);
  };
}
