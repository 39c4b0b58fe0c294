// npx heed's files and streams, as build/heed has them: stdout and stderr written synchronously
// (each line out before the next input is read), stdin read one bounded line at a time as it
// arrives (src/cli/line_reader.h), model and Marian files read with the native CLI's checks and
// messages (translator/load_model.cpp, src/cli/read_file.h), the --attention file appended one
// element at a time (src/cli/attention_file.h). Nothing runs at import.
import { closeSync, fstatSync, openSync, readSync, statSync, writeSync } from 'node:fs';

/** A failure the native CLI reports as heed::Error ("heed: error: MESSAGE"). */
export class CliError extends Error {}

const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Writes all of `text` to `fd` now. A closed stdout (`heed ... | head`) ends the process
 *  quietly, as SIGPIPE ends build/heed (status 141 = 128 + SIGPIPE). */
export function write(fd, text) {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length;) {
    try {
      at += writeSync(fd, bytes, at);
    } catch (e) {
      if (e.code === 'EAGAIN') pause(5);
      else if (e.code === 'EPIPE' && fd === 1) process.exit(141);
      else if (fd === 2) return;
      else throw e;
    }
  }
}

export const out = (text) => write(1, text);
export const err = (text) => write(2, text);

/** stdin one line at a time (line_reader.h's read_line): at most `limit` bytes are kept. */
export class LineReader {
  #buffer = Buffer.alloc(1 << 16);
  #start = 0;
  #end = 0;
  #done = false;

  constructor(fd, limit) {
    this.fd = fd;
    this.limit = limit;
  }

  /** {line: Buffer}, {tooLong: true} (its rest skipped, never stored) or null at the end. */
  next() {
    const parts = [];
    let kept = 0,
      any = false,
      tooLong = false;
    for (;;) {
      if (this.#start === this.#end && !this.#fill()) {
        if (!any) return null;
        break;
      }
      any = true;
      const chunk = this.#buffer.subarray(this.#start, this.#end);
      const newline = chunk.indexOf(10);
      const length = newline < 0 ? chunk.length : newline;
      const take = Math.min(length, this.limit - kept);
      if (take > 0) parts.push(Buffer.from(chunk.subarray(0, take)));
      kept += take;
      tooLong ||= length > take;
      this.#start += newline < 0 ? length : length + 1;
      if (newline >= 0) break;
    }
    return tooLong ? { tooLong: true } : { line: Buffer.concat(parts) };
  }

  /** Reads what has arrived (blocking until something has); false at the end of input. */
  #fill() {
    while (!this.#done) {
      try {
        this.#end = readSync(this.fd, this.#buffer, 0, this.#buffer.length, null);
        this.#start = 0;
        if (this.#end > 0) return true;
        this.#done = true;
      } catch (e) {
        if (e.code === 'EAGAIN') pause(5);
        else this.#done = true; // why: as std::cin, a read error ends the input
      }
    }
    return false;
  }
}

/** The whole of an open file, or null when it could not be read whole. */
function readAll(fd, size) {
  const bytes = Buffer.alloc(size);
  let at = 0;
  while (at < size) {
    const n = readSync(fd, bytes, at, size - at, null);
    if (n === 0) return null;
    at += n;
  }
  return bytes;
}

/** A model file's bytes, with load_model_file's checks and messages. */
export function readModelFile(path, limit) {
  let fd;
  try {
    fd = openSync(path, 'r');
  } catch {
    throw new CliError(`cannot open model file '${path}'`);
  }
  try {
    // why: a device or pipe (/dev/zero) never ends; only a regular file has a size to check
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new CliError(`model file '${path}' is not a regular file`);
    if (stat.size > limit)
      throw new CliError(`model file '${path}' is ${stat.size} bytes, over the limit of ${limit}`);
    const bytes = readAll(fd, stat.size);
    if (!bytes) throw new CliError(`cannot read model file '${path}'`);
    return bytes;
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`cannot read model file '${path}'`);
  } finally {
    closeSync(fd);
  }
}

/** A Marian bundle's file (read_file.h): `what` names it in errors ("vocabulary", ...). */
export function readFile(path, limit, what) {
  let stat = null;
  try {
    stat = statSync(path);
  } catch {}
  if (!stat?.isFile()) throw new CliError(`cannot open ${what} '${path}' (not a regular file)`);
  if (stat.size > limit)
    throw new CliError(`${what} '${path}' is ${stat.size} bytes, over the limit of ${limit}`);
  let fd;
  try {
    fd = openSync(path, 'r');
    const bytes = readAll(fd, stat.size);
    if (bytes) return bytes;
  } catch {
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  throw new CliError(`cannot read ${what} '${path}'`);
}

/** The --attention output: a JSON array written one element at a time and flushed. */
export class AttentionFile {
  #fd;
  #first = true;

  constructor(path) {
    this.path = path;
    try {
      this.#fd = openSync(path, 'w');
    } catch {
      throw new CliError(`cannot write '${path}'`);
    }
    this.#write('[');
  }

  /** Appends one element, already as JSON text. */
  add(json) {
    this.#write((this.#first ? '' : ',') + json);
    this.#first = false;
  }

  close() {
    this.#write(']');
    closeSync(this.#fd);
  }

  #write(text) {
    try {
      write(this.#fd, text);
    } catch {
      throw new CliError(`cannot write '${this.path}'`);
    }
  }
}
