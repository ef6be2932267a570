// What a call writes to stderr (where the log writes warnings and errors), kept from the terminal.
export async function captureStderr<T>(call: () => T | Promise<T>): Promise<{ result: T; output: string }> {
  const write = process.stderr.write;
  let output = "";
  process.stderr.write = ((chunk: string | Uint8Array) => {
    output += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    return { result: await call(), output };
  } finally {
    process.stderr.write = write;
  }
}
