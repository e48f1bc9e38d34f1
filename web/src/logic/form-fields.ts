/** A form control's text value; '' when the control is missing or holds a file. */
export function textField(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === 'string' ? value : '';
}

/** The text values of every control with this name (checkbox groups). */
export function textFields(form: FormData, name: string): string[] {
  return form.getAll(name).filter((value): value is string => typeof value === 'string');
}
