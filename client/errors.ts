/** Any failure the API reports, or a failure to reach it. */
export class VoxsmithError extends Error {
  override readonly name = 'VoxsmithError';

  constructor(
    message: string,
    /** HTTP status; 0 when there was none (network failure, or an error message on the stream). */
    readonly status: number,
    /** Machine-readable code from the server (`validation`, `rate_limited`, ...), when it sent one. */
    readonly code: string | undefined,
    /** The server's id of the request, for its logs. */
    readonly requestId: string | undefined,
    /** Seconds to wait before retrying, from Retry-After or the stream's retry_after. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

interface ErrorBody {
  error?: unknown;
  code?: unknown;
  request_id?: unknown;
}

/** The VoxsmithError for a non-2xx response, from its JSON error body when it has one. */
export async function errorFromResponse(res: Response): Promise<VoxsmithError> {
  let body: ErrorBody = {};
  try {
    body = (await res.json()) as ErrorBody;
  } catch {
    // Not JSON (a proxy's page, say): the status line has to do.
  }
  const retry = res.headers.get('retry-after');
  return new VoxsmithError(
    typeof body.error === 'string' ? body.error : `HTTP ${res.status} ${res.statusText}`.trim(),
    res.status,
    typeof body.code === 'string' ? body.code : undefined,
    typeof body.request_id === 'string' ? body.request_id : (res.headers.get('x-request-id') ?? undefined),
    retry !== null && /^\d+$/.test(retry) ? Number(retry) : undefined,
  );
}
