import assert from 'node:assert/strict';

/** Asserts a response's status; when it differs, the message is the response's body (the error says why). */
export async function assertStatus(res: Response, status: number): Promise<void> {
  assert.equal(
    res.status,
    status,
    await res
      .clone()
      .text()
      .catch(() => ''),
  );
}
