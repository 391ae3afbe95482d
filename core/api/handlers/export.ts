import { EngineConfig, ENGINE_SETTINGS_KEY, layerConfig } from '../../context/engine-context.js';
import type { Handlers, HandlerEnv } from '../handler.js';

/** The zip writer and reader load with the first export or import of one. */
const archive = () => import('../../ingest/export-archive.js');

export function exportHandlers({ ctx, explicitConfig }: HandlerEnv): Handlers<'exportMemory' | 'importMemory'> {
  return {
    async exportMemory(i) {
      return (await archive()).exportMemory(ctx, i);
    },

    async importMemory(i) {
      const out = await (await archive()).importMemoryExport(ctx, i);
      // The export's settings apply now, under what the host set explicitly, as when the engine opens.
      const saved = (await ctx.store.read.settings.get(ENGINE_SETTINGS_KEY)) ?? {};
      const parsed = EngineConfig.safeParse(layerConfig(saved, explicitConfig));
      if (parsed.success) ctx.config = parsed.data;
      else ctx.warn(`the imported settings do not apply (${parsed.error.issues[0]?.message ?? 'invalid'}): the present ones stay`);
      return out;
    },
  };
}
