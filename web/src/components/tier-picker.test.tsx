import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Tier } from '../api/types';
import { TierSelect } from './tier-picker';

const tier = (overrides: Partial<Tier> & Pick<Tier, 'tier'>): Tier => ({
  engine: 'pocketsphinx',
  engineName: 'PocketSphinx',
  model: 'en-us',
  modelsByLanguage: {},
  languages: ['en'],
  streaming: true,
  diarizer: 'classical',
  available: true,
  pricePerMinute: 0.003,
  ...overrides,
});

describe('TierSelect (the upload form’s Model field)', () => {
  afterEach(cleanup);

  it('names the engine and model of each tier, marks and disables an unavailable one, and describes the chosen one', () => {
    render(
      <TierSelect
        id="model"
        tiers={[
          tier({ tier: 'standard' }),
          tier({ tier: 'premium', pricePerMinute: 0.0045 }),
          tier({
            tier: 'premium_jade',
            engine: 'whisper-cpp',
            engineName: 'whisper.cpp',
            model: 'large-v3-turbo-q5_0',
            available: false,
          }),
        ]}
      />,
    );
    const select = screen.getByLabelText<HTMLSelectElement>('Model');
    const options = [...select.options].map((option) => [option.value, option.textContent, option.disabled]);
    expect(options).toEqual([
      ['standard', 'standard — PocketSphinx en-us', false],
      ['premium', 'premium — PocketSphinx en-us', false],
      ['premium_jade', 'premium_jade — whisper.cpp large-v3-turbo-q5_0 (unavailable)', true],
    ]);
    const note = screen.getByTestId('tier-engine');
    expect(note.textContent).toContain('Runs PocketSphinx (model en-us) · English only');
    expect(note.textContent).toContain('premium runs the same PocketSphinx en-us: the same text as standard');
    expect(select.getAttribute('aria-describedby')).toBe(note.id);

    fireEvent.change(select, { target: { value: 'premium' } });
    expect(screen.getByTestId('tier-engine').textContent).toContain('0.0045 EUR per audio minute');
  });

  it('offers the bare tier names when the tiers could not be read', () => {
    render(<TierSelect id="model" tiers={null} />);
    const select = screen.getByLabelText<HTMLSelectElement>('Model');
    expect([...select.options].map((option) => option.value)).toEqual([
      'standard',
      'premium',
      'premium_jade',
    ]);
    expect(screen.queryByTestId('tier-engine')).toBeNull();
  });
});
