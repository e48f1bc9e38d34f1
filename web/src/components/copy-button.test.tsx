import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CopyButton } from './copy-button';

describe('CopyButton', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('writes the text to the clipboard and says so', async () => {
    const writeText = vi.fn(async () => undefined);
    vi.stubGlobal('navigator', { clipboard: { writeText } });
    render(<CopyButton text="whsec_123" label="Copy secret" />);
    fireEvent.click(screen.getByRole('button', { name: 'Copy secret' }));
    expect(await screen.findByText('Copied')).toBeTruthy();
    expect(writeText).toHaveBeenCalledWith('whsec_123');
  });

  it('says copying failed when the browser refuses or has no clipboard', async () => {
    vi.stubGlobal('navigator', { clipboard: { writeText: async () => Promise.reject(new Error('denied')) } });
    const { unmount } = render(<CopyButton text="whsec_123" label="Copy secret" />);
    fireEvent.click(screen.getByRole('button', { name: 'Copy secret' }));
    expect(await screen.findByText(/Could not copy/)).toBeTruthy();
    unmount();

    vi.stubGlobal('navigator', {});
    render(<CopyButton text="whsec_123" label="Copy secret" />);
    fireEvent.click(screen.getByRole('button', { name: 'Copy secret' }));
    expect(await screen.findByText(/Could not copy/)).toBeTruthy();
  });
});
