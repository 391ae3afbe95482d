import type { AnchorHTMLAttributes, ReactNode } from 'react';
import { hashOf, type Route } from '../lib/routes';
import { navigate } from '../store/route';

/**
 * A link to a place in the app: a real `href` (middle-click, copy link, screen readers call it a
 * link), followed through `navigate` so the in-app Back knows the way home.
 */
export function RouteLink({
  to,
  children,
  ...rest
}: { to: Route; children: ReactNode } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href' | 'onClick'>) {
  return (
    <a
      {...rest}
      href={hashOf(to)}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
