/** Where conversations came from (an importer's format id, `api`, or a companion's own name), as a person reads it. Pure. */
import type { MessageKey } from '../i18n/en';

/** Formats named the same in every language (core/ingest: each importer's `source`). */
const BRANDS: Readonly<Record<string, string>> = {
  whatsapp: 'WhatsApp',
  qq: 'QQ',
  line: 'LINE',
  telegram: 'Telegram',
  // Instagram threads imported before they had their own source are stored as messenger.
  messenger: 'Messenger / Instagram',
  instagram: 'Instagram',
  'google-chat': 'Google Chat',
  skype: 'Skype',
  imessage: 'iMessage',
  discord: 'Discord',
  slack: 'Slack',
  chatgpt: 'ChatGPT',
  claude: 'Claude',
  'nemori-json': 'Nemori JSON',
  'nemori-jsonl': 'Nemori JSONL',
};

/** Sources each language names its own way. */
const TRANSLATED: Readonly<Record<string, MessageKey>> = {
  api: 'source.api',
  wechat: 'source.wechat',
  markdown: 'source.markdown',
};

/** "WhatsApp", "微信", "Companion app (API)"; any other source (a companion's own name) as written. */
export function sourceName(source: string, t: (key: MessageKey) => string): string {
  const key = TRANSLATED[source];
  return key ? t(key) : (BRANDS[source] ?? source);
}
