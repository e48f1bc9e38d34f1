import { describe, expect, it } from 'vitest';
import { textField, textFields } from './form-fields';

describe('form fields', () => {
  const form = new FormData();
  form.set('name', ' Sales calls ');
  form.set('file', new File(['x'], 'a.wav'));
  form.append('events', 'transcription.completed');
  form.append('events', 'balance.low');

  it('reads a text control as it is, and a missing control or a file as empty text', () => {
    expect(textField(form, 'name')).toBe(' Sales calls ');
    expect(textField(form, 'missing')).toBe('');
    expect(textField(form, 'file')).toBe('');
  });

  it('reads every value of a checkbox group, in order', () => {
    expect(textFields(form, 'events')).toEqual(['transcription.completed', 'balance.low']);
    expect(textFields(form, 'missing')).toEqual([]);
  });
});
