const LOWER = /^[a-z]$/;
const UPPER = /^[A-Z]$/;
/** Escapes whose letters are not characters to match (`\p{L}`, `\u0041`, `\k<name>`, …). */
const UNSUPPORTED_ESCAPES = new Set(['p', 'P', 'k', 'u', 'x', 'c']);

class UnsupportedPatternError extends Error {
  constructor(source: string, reason: string) {
    super(`Cannot describe /${source}/ after lowercasing: ${reason}`);
    this.name = 'UnsupportedPatternError';
  }
}

// JSON Schema patterns have no flags, so what `v.toLowerCase()` then `v.regex(…)` accepts is spelled out:
// `^[a-z0-9-]{1,50}$` becomes `^[a-zA-Z0-9-]{1,50}$`. Only ASCII patterns written in lowercase are supported.

/** The pattern an input must match so that its lowercase form matches `source`; throws when it cannot say. */
export function lowercaseInputPattern(source: string): string {
  const fail = (reason: string): never => {
    throw new UnsupportedPatternError(source, reason);
  };
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const char = source.charAt(i);
    if (char.charCodeAt(0) > 0x7f) fail('non-ASCII characters');
    if (char === '\\') {
      const next = source.charAt(i + 1);
      if (UNSUPPORTED_ESCAPES.has(next)) fail(`the escape \\${next}`);
      out += `\\${next}`;
      i++;
      continue;
    }
    if (UPPER.test(char)) fail('an uppercase letter never matches a lowercased input');
    if (inClass) {
      const end = source.charAt(i + 2);
      if (source.charAt(i + 1) === '-' && end !== ']' && end !== '') {
        const isLetters = LOWER.test(char) && LOWER.test(end);
        if (!isLetters && (LOWER.test(char) || LOWER.test(end))) fail(`the range ${char}-${end}`);
        out += isLetters ? `${char}-${end}${char.toUpperCase()}-${end.toUpperCase()}` : `${char}-${end}`;
        i += 2;
      } else {
        if (char === ']') inClass = false;
        out += LOWER.test(char) ? `${char}${char.toUpperCase()}` : char;
      }
    } else if (char === '[') {
      inClass = true;
      out += char;
      // A leading `^` negates the class; it is not a character of it.
      if (source.charAt(i + 1) === '^') out += source.charAt(++i);
    } else if (char === '(' && source.startsWith('?<', i + 1) && !/^[=!]/.test(source.charAt(i + 3))) {
      fail('named groups');
    } else {
      out += LOWER.test(char) ? `[${char}${char.toUpperCase()}]` : char;
    }
  }
  return out;
}
