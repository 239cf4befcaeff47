/** The port `tackle serve` listens on unless told otherwise. */
export const DEFAULT_SERVE_PORT = 7878;
