/**
 * Keyset paging as the list endpoint offers it (a `cursor` forward only): the cursors of the pages already seen
 * are kept on a stack so "Previous" goes back. `undefined` is the first page's cursor.
 */
export interface CursorPaging {
  /** Cursors of the pages before the current one, oldest first. */
  readonly previous: readonly (string | undefined)[];
  readonly current: string | undefined;
  /** The cursor of the next page, null when the current page is the last. */
  readonly next: string | null;
}

export const firstPage = (): CursorPaging => ({ previous: [], current: undefined, next: null });

/** The current page answered: remember where the next one starts. */
export const pageLoaded = (paging: CursorPaging, cursor: string | null, hasMore: boolean): CursorPaging => ({
  ...paging,
  next: hasMore ? cursor : null,
});

export function nextPage(paging: CursorPaging): CursorPaging {
  if (paging.next === null) return paging;
  return { previous: [...paging.previous, paging.current], current: paging.next, next: null };
}

export function previousPage(paging: CursorPaging): CursorPaging {
  if (paging.previous.length === 0) return paging;
  return {
    previous: paging.previous.slice(0, -1),
    current: paging.previous[paging.previous.length - 1],
    next: null,
  };
}

export const hasPrevious = (paging: CursorPaging): boolean => paging.previous.length > 0;
