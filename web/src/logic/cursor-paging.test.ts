import { describe, expect, it } from 'vitest';
import { firstPage, hasPrevious, nextPage, pageLoaded, previousPage } from './cursor-paging';

describe('cursor paging', () => {
  it('follows cursors forward and walks back through the pages seen', () => {
    let paging = pageLoaded(firstPage(), 'c1', true);
    expect(hasPrevious(paging)).toBe(false);
    paging = nextPage(paging);
    expect(paging.current).toBe('c1');
    paging = pageLoaded(paging, 'c2', true);
    paging = nextPage(paging);
    expect(paging.current).toBe('c2');
    paging = pageLoaded(paging, null, false);
    expect(paging.next).toBeNull();
    expect(nextPage(paging)).toBe(paging);
    paging = previousPage(paging);
    expect(paging.current).toBe('c1');
    paging = previousPage(paging);
    expect(paging.current).toBeUndefined();
    expect(previousPage(paging)).toBe(paging);
  });
  it('has no next page when the answer says hasMore false, whatever the cursor', () => {
    expect(pageLoaded(firstPage(), 'c9', false).next).toBeNull();
  });
});
