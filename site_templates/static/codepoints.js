// Code points, the unit of every offset pincite writes (`pincite cite --chars`). The browser counts
// UTF-16 units, so every conversion between the two goes through this module.

/** The UTF-16 units (1 or 2) of the code point that starts at unit `i` of `s`. */
export function unitsAt(s, i) {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

/** The number of code points in `s` (a lone surrogate counts as one, as Python's len does). */
export function codePoints(s) {
  let n = 0;
  for (let i = 0; i < s.length; i += unitsAt(s, i)) n++;
  return n;
}

/** The UTF-16 offset in `s` of code point `cp` (the end of `s` past its last code point). */
export function unitOffset(s, cp) {
  let i = 0;
  for (let n = 0; n < cp && i < s.length; n++) i += unitsAt(s, i);
  return i;
}
