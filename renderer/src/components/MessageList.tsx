import type { MessageView } from '../api/types';
import type { Locale } from '../i18n';
import { formatDateTime, formatTime } from '../lib/dates';

/**
 * Source messages, folded away until asked for: who said what and when, in the sender's own time.
 * `withDate`: messages from several days (a fact's sources) show their date, not just the time.
 */
export function MessageList({
  messages,
  summary,
  locale,
  testId,
  withDate = false,
}: {
  messages: readonly MessageView[];
  summary: string;
  locale: Locale;
  testId?: string;
  withDate?: boolean;
}) {
  return (
    <details className="messages" data-testid={testId}>
      <summary>{summary}</summary>
      <ol>
        {messages.map((m) => (
          <li key={m.id} className="message" data-role={m.role}>
            <div className="message-head">
              <span className="speaker">{m.speaker}</span>
              <time dateTime={m.sentAt} title={formatDateTime(m.sentAt, m.utcOffsetMin, locale)}>
                {(withDate ? formatDateTime : formatTime)(m.sentAt, m.utcOffsetMin, locale)}
              </time>
            </div>
            <p className="message-text">{m.text}</p>
            {m.attachments.length > 0 && (
              <ul className="attachments">
                {m.attachments.map((a, i) => (
                  <li key={i}>
                    {a.kind}: {a.name ?? a.caption ?? a.uri ?? ''}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
    </details>
  );
}
