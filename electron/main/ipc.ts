import { ipcMain, type IpcMainInvokeEvent } from 'electron';
import type { Dispatcher } from '../../core/api/dispatch';
import { BRIDGE_CHANNELS, PICK_KINDS, type PickKind } from '../../core/api/bridge';
import { isAppUrl } from './security';

export interface BridgeHandlers {
  /** Validates against the contract and runs the operation in the engine (see core/http/dispatch.ts). */
  dispatcher: Dispatcher;
  pick(kind: PickKind, event: IpcMainInvokeEvent): Promise<string[]>;
  version(): string;
}

/**
 * Registers the bridge's channels. Calls from any frame that is not the app's own page (a
 * navigated-away or embedded frame) are refused. Returns a function that unregisters them.
 */
export function registerBridgeHandlers(handlers: BridgeHandlers, appEntryUrl: string): () => void {
  const guard = (name: string, event: IpcMainInvokeEvent): void => {
    const senderUrl = event.senderFrame?.url ?? '';
    if (!isAppUrl(senderUrl, appEntryUrl)) {
      throw new Error(`Refused "${name}": the request did not come from the Nemori window.`);
    }
  };
  ipcMain.handle(BRIDGE_CHANNELS.call, (event, operation: unknown, input: unknown) => {
    guard('call', event);
    return handlers.dispatcher.dispatch(typeof operation === 'string' ? operation : String(operation), input);
  });
  ipcMain.handle(BRIDGE_CHANNELS.pick, (event, kind: unknown) => {
    guard('pick', event);
    if (!PICK_KINDS.includes(kind as PickKind)) throw new Error(`Refused "pick": unknown kind ${String(kind)}`);
    return handlers.pick(kind as PickKind, event);
  });
  ipcMain.handle(BRIDGE_CHANNELS.version, (event) => {
    guard('version', event);
    return handlers.version();
  });
  return () => {
    for (const channel of [BRIDGE_CHANNELS.call, BRIDGE_CHANNELS.pick, BRIDGE_CHANNELS.version]) ipcMain.removeHandler(channel);
  };
}
