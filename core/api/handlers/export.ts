import { EngineConfig, ENGINE_SETTINGS_KEY, layerConfig } from '../../context/engine-context.js';
import { exportMemory, importMemoryExport } from '../../ingest/export-archive.js';
import type { Handlers, HandlerEnv } from '../handler.js';

export function exportHandlers({ ctx, explicitConfig }: HandlerEnv): Handlers<'exportMemory' | 'importMemory'> {
  return {
    exportMemory(i) {
      return exportMemory(ctx, i);
    },

    async importMemory(i) {
      const out = await importMemoryExport(ctx, i);
      // The export's settings apply now, under what the host set explicitly, as when the engine opens.
      const saved = (await ctx.store.read.settings.get(ENGINE_SETTINGS_KEY)) ?? {};
      const parsed = EngineConfig.safeParse(layerConfig(saved, explicitConfig));
      if (parsed.success) ctx.config = parsed.data;
      else ctx.warn(`the imported settings do not apply (${parsed.error.issues[0]?.message ?? 'invalid'}): the present ones stay`);
      return out;
    },
  };
}
