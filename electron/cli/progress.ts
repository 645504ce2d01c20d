/**
 * Progress for long CLI work, on stderr so `--json` stdout stays one document. On a terminal it redraws
 * one line; otherwise it prints a line at most every two seconds, so logs stay readable.
 */
export class Progress {
  private last = 0;
  private drawn = false;
  constructor(
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly quiet = false,
  ) {}

  update(text: string, force = false): void {
    if (this.quiet) return;
    const now = Date.now();
    const tty = this.stream.isTTY === true;
    if (!force && now - this.last < (tty ? 80 : 2000)) return;
    this.last = now;
    if (tty) {
      const width = Math.max(20, (this.stream.columns ?? 100) - 1);
      this.stream.write(`\r\u001b[2K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
      this.drawn = true;
    } else {
      this.stream.write(`${text}\n`);
    }
  }

  done(): void {
    if (this.drawn) this.stream.write('\r\u001b[2K');
    this.drawn = false;
  }
}

export function bar(fraction: number, width = 20): string {
  const f = Math.min(1, Math.max(0, fraction));
  const full = Math.round(f * width);
  return `[${'#'.repeat(full)}${'.'.repeat(width - full)}] ${(f * 100).toFixed(0).padStart(3)}%`;
}
