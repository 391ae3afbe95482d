import type { ReactNode } from 'react';

/** What a new person sees where content will be: what this place is for and the one thing to do next. */
export function EmptyState({
  title,
  children,
  action,
  testId,
}: {
  title: string;
  children: ReactNode;
  action?: ReactNode;
  testId?: string;
}) {
  return (
    <section className="empty" data-testid={testId}>
      <h2>{title}</h2>
      <p>{children}</p>
      {action && <div className="empty-action">{action}</div>}
    </section>
  );
}
