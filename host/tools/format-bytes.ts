/**
 * Byte counts for people: `812 B`, `3.2 KiB`, `5.0 MiB`.
 */

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

/** Formats a byte count with binary units and one decimal. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${UNITS[unit]}`;
}
