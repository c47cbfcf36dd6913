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
  const scan = new PatternScan(source);
  while (scan.i < source.length) scan.step();
  return scan.out;
}

/**
 * One left-to-right pass over a pattern. A letter means something else inside a character class (`[ab]` gets
 * `[aAbB]`, a lone `a` gets `[aA]`), so the pass remembers whether it is inside one.
 */
class PatternScan {
  readonly source: string;
  /** The index of the next character to read. */
  i = 0;
  /** The pattern written so far. */
  out = '';
  inClass = false;

  constructor(source: string) {
    this.source = source;
  }

  /** Reads one character, or the escape, range or class opening it starts, and writes what it becomes. */
  step(): void {
    const char = this.source.charAt(this.i);
    if (char.charCodeAt(0) > 0x7f) this.fail('non-ASCII characters');
    // An escape comes first: `\D`, `\W`, `\S` and `\B` are uppercase but are classes or assertions, not letters.
    if (char === '\\') this.escape();
    else if (UPPER.test(char)) this.fail('an uppercase letter never matches a lowercased input');
    else if (this.inClass) this.inClassMember(char);
    else this.outsideClass(char);
  }

  private escape(): void {
    const next = this.source.charAt(this.i + 1);
    if (UNSUPPORTED_ESCAPES.has(next)) this.fail(`the escape \\${next}`);
    this.write(`\\${next}`, 2);
  }

  private inClassMember(char: string): void {
    const end = this.source.charAt(this.i + 2);
    if (this.source.charAt(this.i + 1) === '-' && end !== ']' && end !== '') this.range(char, end);
    else {
      if (char === ']') this.inClass = false;
      this.write(LOWER.test(char) ? `${char}${char.toUpperCase()}` : char, 1);
    }
  }

  /** A range of letters gets its uppercase twin; one that mixes letters with other characters cannot. */
  private range(first: string, last: string): void {
    const isLetters = LOWER.test(first) && LOWER.test(last);
    if (!isLetters && (LOWER.test(first) || LOWER.test(last))) this.fail(`the range ${first}-${last}`);
    this.write(
      isLetters ? `${first}-${last}${first.toUpperCase()}-${last.toUpperCase()}` : `${first}-${last}`,
      3,
    );
  }

  private outsideClass(char: string): void {
    if (char === '[') this.openClass();
    else if (char === '(' && this.namedGroupAt(this.i)) this.fail('named groups');
    else this.write(LOWER.test(char) ? `[${char}${char.toUpperCase()}]` : char, 1);
  }

  private openClass(): void {
    this.inClass = true;
    // A leading `^` negates the class; it is not a character of it.
    if (this.source.charAt(this.i + 1) === '^') this.write('[^', 2);
    else this.write('[', 1);
  }

  /** `(?<name>` opens a named group; `(?<=` and `(?<!` open lookbehinds. */
  private namedGroupAt(i: number): boolean {
    return this.source.startsWith('?<', i + 1) && !/^[=!]/.test(this.source.charAt(i + 3));
  }

  private write(text: string, consumed: number): void {
    this.out += text;
    this.i += consumed;
  }

  private fail(reason: string): never {
    throw new UnsupportedPatternError(this.source, reason);
  }
}
