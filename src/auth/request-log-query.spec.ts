import { loggedQuery } from './request-log-query';

describe('the query string a request log keeps', () => {
  it('keeps settings as they are', () => {
    expect(loggedQuery('/v1/transcriptions/1/export?format=srt&max_lines=2')).toBe('format=srt&max_lines=2');
    expect(loggedQuery('/v1/api-keys/1/requests?status=4xx&limit=50')).toBe('status=4xx&limit=50');
  });

  it('never keeps searched text, nor a value that reads as text', () => {
    expect(loggedQuery('/v1/transcriptions?search=quarterly%20numbers&limit=5')).toBe('search=*&limit=5');
    expect(loggedQuery('/v1/transcriptions/1/search?q=invoice')).toBe('q=*');
    expect(loggedQuery('/v1/x?note=hello%20there%21')).toBe('note=*');
  });

  it('is empty without a query, and bounded', () => {
    expect(loggedQuery('/v1/transcriptions')).toBe('');
    expect(loggedQuery(`/v1/x?${'a'.repeat(100)}=${'b'.repeat(100)}`)).toBe(
      `${'a'.repeat(64)}=${'b'.repeat(64)}`,
    );
    const many = Array.from({ length: 100 }, (_, index) => `p${index}=v`).join('&');
    expect(loggedQuery(`/v1/x?${many}`).length).toBe(512);
  });
});
