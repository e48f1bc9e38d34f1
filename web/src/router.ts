import { useEffect, useState } from 'react';

/** The app's routes are paths under /app (the service answers index.html for any of them). */
export const BASE = '/app';

export function currentRoute(): string {
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : '/';
  return path === '' ? '/' : path;
}

export function navigate(route: string): void {
  window.history.pushState(null, '', `${BASE}${route}`);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

export function useRoute(): string {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return route;
}
