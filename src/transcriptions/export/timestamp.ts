/** Whole milliseconds; negative, NaN and infinite inputs count as 0 so a bad word never breaks a file. */
export function toMilliseconds(seconds: number): number {
  if (!Number.isFinite(seconds) || seconds <= 0) {
    return 0;
  }
  return Math.round(seconds * 1000);
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

function splitMilliseconds(totalMs: number): { hours: number; minutes: number; seconds: number; ms: number } {
  return {
    hours: Math.floor(totalMs / 3_600_000),
    minutes: Math.floor(totalMs / 60_000) % 60,
    seconds: Math.floor(totalMs / 1000) % 60,
    ms: totalMs % 1000,
  };
}

/**
 * Caption timestamp `HH:MM:SS<separator>mmm`: `,` for SRT, `.` for WebVTT. Rounded to the millisecond;
 * hours grow past two digits rather than wrap.
 */
export function formatCaptionTimestamp(seconds: number, separator: ',' | '.'): string {
  const parts = splitMilliseconds(toMilliseconds(seconds));
  return `${pad(parts.hours, 2)}:${pad(parts.minutes, 2)}:${pad(parts.seconds, 2)}${separator}${pad(parts.ms, 3)}`;
}

/** `HH:MM:SS`, truncated to the second so a paragraph stamp never points after the speech starts. */
export function formatClock(seconds: number): string {
  const wholeSeconds = Math.floor(toMilliseconds(seconds) / 1000);
  const parts = splitMilliseconds(wholeSeconds * 1000);
  return `${pad(parts.hours, 2)}:${pad(parts.minutes, 2)}:${pad(parts.seconds, 2)}`;
}
