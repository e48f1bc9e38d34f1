/** The longest query string a request-log entry keeps (as the path: 512 characters). */
export const MAX_LOGGED_QUERY_LENGTH = 512;
const MAX_LOGGED_VALUE_LENGTH = 64;

/** Parameters that carry the caller's own text (transcript search): their values never enter the log. */
const FREE_TEXT_PARAMETERS = new Set(['search', 'q']);

/** A value that reads as a setting (a format, a number, an id, a status class), not as someone's text. */
const SETTING_VALUE = /^[A-Za-z0-9_.:,+-]*$/;

/**
 * The query string of a request as its key's request log keeps it (issue 35 item 10: the export format was
 * invisible): the parameter names always, a value only when it reads as a setting; a free-text parameter's
 * value, or any value with other characters, is `*`. Values are cut at 64 characters, the whole at 512.
 * Empty when the request had no query.
 */
export function loggedQuery(url: string): string {
  const mark = url.indexOf('?');
  if (mark < 0) return '';
  const parts: string[] = [];
  for (const [name, value] of new URLSearchParams(url.slice(mark + 1))) {
    const kept =
      FREE_TEXT_PARAMETERS.has(name) || !SETTING_VALUE.test(value)
        ? '*'
        : value.slice(0, MAX_LOGGED_VALUE_LENGTH);
    parts.push(`${encodeURIComponent(name.slice(0, MAX_LOGGED_VALUE_LENGTH))}=${kept}`);
  }
  return parts.join('&').slice(0, MAX_LOGGED_QUERY_LENGTH);
}
