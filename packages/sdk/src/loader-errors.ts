/**
 * The loader's own failures, told from the server's by the error a send got: the loader ran out of
 * file descriptors (EMFILE, ENFILE), local ports (EADDRNOTAVAIL, EADDRINUSE on connect) or socket
 * buffers (ENOBUFS). A refused, reset or closed connection, or a timeout, is the server's. Drivers
 * count the loader's apart (`DriverRunResult.loaderErrors`), so they never read as the server failing.
 */
const LOADER_ERROR = /\b(EMFILE|ENFILE|EADDRNOTAVAIL|EADDRINUSE|ENOBUFS)\b|too many open files|cannot assign requested address|address already in use|no buffer space available/i;

/** Whether a send's error message says the loader failed it itself (see above). */
export function isLoaderError(message: string): boolean {
  return LOADER_ERROR.test(message);
}
