import { FormEvent, useEffect, useId, useState } from 'react';
import {
  AUDIT_ACTIONS,
  AUDIT_ACTOR_TYPES,
  AUDIT_TARGET_TYPES,
  AuditEvent,
  AuditEventPage,
} from '../api/types';
import {
  AuditFilters,
  auditQuery,
  describeActor,
  describeChange,
  describeTarget,
  NO_FILTERS,
} from '../logic/audit-filters';
import {
  CursorPaging,
  firstPage,
  hasPrevious,
  nextPage,
  pageLoaded,
  previousPage,
} from '../logic/cursor-paging';
import { textField } from '../logic/form-fields';
import { useClient } from '../session-context';

const PAGE_SIZE = '25';

/** One event: when, what, who, on what, from where; the values before and after behind a disclosure. */
function EventItem({ event }: { event: AuditEvent }) {
  const change = describeChange(event);
  return (
    <li className="audit-event">
      <div className="audit-head">
        <code className="audit-action">{event.action}</code>
        <time dateTime={event.at}>{new Date(event.at).toLocaleString()}</time>
      </div>
      <dl className="audit-facts">
        <div>
          <dt>Actor</dt>
          <dd>
            {describeActor(event.actor)}
            {event.actor.credential ? ` · ${event.actor.credential}` : ''}
          </dd>
        </div>
        <div>
          <dt>Target</dt>
          <dd>{describeTarget(event.target)}</dd>
        </div>
        <div>
          <dt>Client</dt>
          <dd>{event.clientIp ?? '—'}</dd>
        </div>
        <div>
          <dt>Request id</dt>
          <dd>
            <code>{event.requestId ?? '—'}</code>
          </dd>
        </div>
      </dl>
      {change && (
        <details>
          <summary>Details</summary>
          <pre className="audit-change">{change}</pre>
        </details>
      )}
    </li>
  );
}

/**
 * The workspace's audit log (GET /v1/audit-events): filters, keyset pages newest first, and the NDJSON export of
 * what the filters select (a plain link: the session cookie authenticates the download's GET).
 */
export function AuditPage() {
  const client = useClient();
  const id = useId();
  const [filters, setFilters] = useState<AuditFilters>(NO_FILTERS);
  const [paging, setPaging] = useState<CursorPaging>(firstPage);
  const [events, setEvents] = useState<AuditEvent[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);

  const current = paging.current;
  useEffect(() => {
    const query = auditQuery(filters);
    query.set('limit', PAGE_SIZE);
    if (current) query.set('cursor', current);
    let stale = false;
    client
      .json<AuditEventPage>(`/v1/audit-events?${query}`)
      .then((page) => {
        if (stale) return;
        setEvents(page.data);
        setPaging((paging) => pageLoaded(paging, page.cursor, page.hasMore));
        setError(null);
      })
      .catch((caught: Error) => !stale && setError(caught.message));
    return () => {
      stale = true;
    };
  }, [client, filters, current, reloads]);

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setFilters({
      action: textField(form, 'action'),
      actorType: textField(form, 'actorType'),
      actorId: textField(form, 'actorId'),
      targetType: textField(form, 'targetType'),
      targetId: textField(form, 'targetId'),
      from: textField(form, 'from'),
      to: textField(form, 'to'),
    });
    setPaging(firstPage());
  };
  const exportQuery = auditQuery(filters).toString();

  return (
    <>
      <h1>Audit log</h1>
      <section className="card" aria-labelledby={`${id}-filters`}>
        <h2 id={`${id}-filters`}>Filters</h2>
        <form className="audit-filters" role="search" onSubmit={apply}>
          <div className="field">
            <label htmlFor={`${id}-action`}>Action</label>
            <select id={`${id}-action`} name="action" defaultValue="">
              <option value="">Any</option>
              {AUDIT_ACTIONS.map((action) => (
                <option key={action} value={action}>
                  {action}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-actor-type`}>Actor type</label>
            <select id={`${id}-actor-type`} name="actorType" defaultValue="">
              <option value="">Any</option>
              {AUDIT_ACTOR_TYPES.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-actor-id`}>Actor id (user or key)</label>
            <input id={`${id}-actor-id`} name="actorId" spellCheck={false} autoComplete="off" />
          </div>
          <div className="field">
            <label htmlFor={`${id}-target-type`}>Target type</label>
            <select id={`${id}-target-type`} name="targetType" defaultValue="">
              <option value="">Any</option>
              {AUDIT_TARGET_TYPES.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-target-id`}>Target id</label>
            <input id={`${id}-target-id`} name="targetId" spellCheck={false} autoComplete="off" />
          </div>
          <div className="field">
            <label htmlFor={`${id}-from`}>From</label>
            <input id={`${id}-from`} name="from" type="datetime-local" />
          </div>
          <div className="field">
            <label htmlFor={`${id}-to`}>To</label>
            <input id={`${id}-to`} name="to" type="datetime-local" />
          </div>
          <div className="toolbar">
            <button type="submit" className="primary">
              Apply filters
            </button>
            <button type="button" onClick={() => setReloads((n) => n + 1)}>
              Refresh
            </button>
            <a
              className="button-link"
              href={`/v1/audit-events/export${exportQuery ? `?${exportQuery}` : ''}`}
              download="audit-events.ndjson"
            >
              Export NDJSON
            </a>
          </div>
        </form>
      </section>
      <section className="card" aria-labelledby={`${id}-events`}>
        <h2 id={`${id}-events`}>Events</h2>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        {events === null && !error && <p>Loading…</p>}
        {events && events.length === 0 && <p className="muted">No events match.</p>}
        {events && events.length > 0 && (
          <ol className="audit-list" aria-label="Audit events">
            {events.map((event) => (
              <EventItem key={event.id} event={event} />
            ))}
          </ol>
        )}
        <nav className="pager" aria-label="Pages">
          <button type="button" disabled={!hasPrevious(paging)} onClick={() => setPaging(previousPage)}>
            Previous page
          </button>
          <button type="button" disabled={paging.next === null} onClick={() => setPaging(nextPage)}>
            Next page
          </button>
        </nav>
      </section>
    </>
  );
}
