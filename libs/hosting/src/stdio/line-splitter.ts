/**
 * Splits a byte stream into newline-delimited messages of at most `limit` bytes each. A line
 * that grows past the limit is reported once, as soon as it does, and the rest of it is skipped
 * without being kept: a hostile 100 MB line costs no more memory than the limit.
 */
export class LineSplitter {
  private pieces: Buffer[] = [];
  private size = 0;
  private discarding = false;

  constructor(
    private readonly limit: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onTooLong: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      if (!this.discarding) this.keep(chunk.subarray(start, end));
      if (newline === -1) return;
      if (this.discarding) this.discarding = false;
      else this.emit();
      start = newline + 1;
    }
  }

  private keep(piece: Buffer): void {
    if (this.size + piece.length > this.limit) {
      this.pieces = [];
      this.size = 0;
      this.discarding = true;
      this.onTooLong();
      return;
    }
    if (piece.length > 0) {
      this.pieces.push(piece);
      this.size += piece.length;
    }
  }

  private emit(): void {
    const line = this.pieces.length === 1 ? this.pieces[0] : Buffer.concat(this.pieces, this.size);
    this.pieces = [];
    this.size = 0;
    this.onLine(line);
  }
}
