export interface SessionUser {
  id: string;
  email: string;
}
export interface Session {
  accessToken: string;
  expiresIn: number;
  user: SessionUser;
  workspace: { id: string; name: string };
}

/** An RFC 7807 answer (or a network failure) as an Error the pages can show. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly slug: string,
    message: string,
  ) {
    super(message);
  }
}

export async function problemOf(response: Response): Promise<ApiError> {
  let title = `${response.status} ${response.statusText}`;
  let slug = '';
  try {
    const body = (await response.json()) as { title?: string; detail?: string; type?: string };
    title = body.detail ?? body.title ?? title;
    slug = body.type?.split('/').pop() ?? '';
  } catch {
    // not problem+json (a proxy's page): the status line says enough
  }
  return new ApiError(response.status, slug, title);
}

type Fetch = typeof fetch;

/** Share of the access token's life after which it is renewed ahead of time (never sooner than 5 s). */
const RENEW_AT = 0.8;

/**
 * The page's one way to call the API. The access token lives in memory only (never storage: a cross-site
 * script cannot read it); the httpOnly refresh cookie renews it. A 401 triggers one refresh (shared by every
 * call that fails at the same time) and one retry; when the refresh is refused, `onExpired` asks the user to
 * sign in again (a dialog over the page, so nothing on it is lost) and the call is retried once more.
 * While a session is open it is also renewed ahead of its expiry: the `stt_session` cookie lives as long as
 * the access token, and the page's EventSources and `<audio>` element, which only have the cookie, would
 * otherwise get 401 on their next reconnect or range request once a page sat open without API calls.
 */
export class SessionClient {
  private session: Session | null = null;
  private refreshing: Promise<Session | null> | null = null;
  private renewal: ReturnType<typeof setTimeout> | null = null;
  private readonly listeners = new Set<(session: Session | null) => void>();

  constructor(
    private readonly fetchImpl: Fetch = (input, init) => fetch(input, init),
    /** Resolves with a new session once the user signed in again, or null when they gave up. */
    public onExpired: () => Promise<Session | null> = async () => null,
  ) {}

  get current(): Session | null {
    return this.session;
  }

  get accessToken(): string | null {
    return this.session?.accessToken ?? null;
  }

  subscribe(listener: (session: Session | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private setSession(session: Session | null): void {
    this.session = session;
    if (this.renewal) clearTimeout(this.renewal);
    this.renewal = session
      ? setTimeout(() => void this.refresh(), Math.max(5, session.expiresIn * RENEW_AT) * 1000)
      : null;
    for (const listener of this.listeners) listener(session);
  }

  async signIn(email: string, password: string): Promise<Session> {
    const response = await this.fetchImpl('/v1/auth/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password }),
      credentials: 'same-origin',
    });
    if (!response.ok) throw await problemOf(response);
    const session = ((await response.json()) as { data: Session }).data;
    this.setSession(session);
    return session;
  }

  async signOut(): Promise<void> {
    try {
      await this.fetchImpl('/v1/auth/logout', { method: 'POST', credentials: 'same-origin' });
    } finally {
      this.setSession(null);
    }
  }

  /** A new access token from the refresh cookie; null when there is no (valid) session. */
  refresh(): Promise<Session | null> {
    this.refreshing ??= this.fetchImpl('/v1/auth/refresh', { method: 'POST', credentials: 'same-origin' })
      .then(async (response) => (response.ok ? ((await response.json()) as { data: Session }).data : null))
      .catch(() => null)
      .then((session) => {
        this.refreshing = null;
        if (session) this.setSession(session);
        return session;
      });
    return this.refreshing;
  }

  private withToken(init: RequestInit, token: string | null): RequestInit {
    const headers = new Headers(init.headers);
    if (token) headers.set('Authorization', `Bearer ${token}`);
    return { ...init, headers, credentials: 'same-origin' };
  }

  /** fetch with the access token; refresh-and-retry once on 401, then the sign-in dialog. */
  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const first = await this.fetchImpl(path, this.withToken(init, this.accessToken));
    if (first.status !== 401) return first;
    const renewed = (await this.refresh()) ?? (await this.onExpired());
    if (!renewed) return first;
    return this.fetchImpl(path, this.withToken(init, renewed.accessToken));
  }

  /** JSON in, JSON out; any non-2xx becomes an ApiError. 204 gives undefined. */
  async json<T>(path: string, init: Omit<RequestInit, 'body'> & { body?: unknown } = {}): Promise<T> {
    const hasBody = init.body !== undefined;
    const response = await this.request(path, {
      ...init,
      headers: hasBody ? { 'Content-Type': 'application/json', ...init.headers } : init.headers,
      body: hasBody ? JSON.stringify(init.body) : undefined,
    });
    if (!response.ok) throw await problemOf(response);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }
}
