// Issue 44, J2: raw piece audio must not pile up in the database while a book renders. Once a chapter of an MP3
// job is encoded, its pieces hold no audio, while later chapters are still being rendered.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { useService } from '../helpers/fixture.ts';

describe('piece audio leaves the database once its chapter is encoded', () => {
  const s = useService({ user: 'pieces@example.com' });

  test('an MP3 job: the first chapter’s pieces hold no audio while the last chapter is not yet encoded', async () => {
    const long = Array.from({ length: 8 }, (_, i) => `Paragraph ${i + 1} of the second chapter, read at an ordinary pace.`).join('\n\n');
    const res = await s.call('/v1/jobs', {
      json: { text: `# One\n\nHello there.\n\n# Two\n\n${long}`, text_type: 'markdown', voice_id: 'flite-slt', format: 'mp3' },
    });
    const job = (await res.json()) as { id: string };
    assert.equal(res.status, 202, JSON.stringify(job));
    const db = s.app.services.db;
    const chapterState = async (): Promise<Array<{ n: number; encoded: boolean; pcmBytes: number }>> => {
      const r = await sql<{ n: number; first_piece: number; pieces: number; audio_attempt: string | null }>`
        select n, first_piece, pieces, audio_attempt from job_chapters where job_id = ${job.id} order by n`.execute(db);
      const out: Array<{ n: number; encoded: boolean; pcmBytes: number }> = [];
      for (const c of r.rows) {
        const p = await sql<{ b: number | string | null }>`
          select sum(length(pcm)) as b from job_pieces where job_id = ${job.id} and n >= ${c.first_piece} and n < ${c.first_piece + c.pieces}`.execute(
          db,
        );
        out.push({ n: Number(c.n), encoded: c.audio_attempt !== null, pcmBytes: Number(p.rows[0]?.b ?? 0) });
      }
      return out;
    };
    // Watch until the first chapter's pieces are emptied or the whole job is encoded, whichever comes first.
    let seen: Array<{ n: number; encoded: boolean; pcmBytes: number }> = [];
    for (let i = 0; i < 3000; i++) {
      seen = await chapterState();
      if (seen.length === 2 && seen[0].encoded && seen[0].pcmBytes === 0) break;
      if (seen.length === 2 && seen[1].encoded) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(
      [seen[0]?.encoded, seen[0]?.pcmBytes, seen[1]?.encoded],
      [true, 0, false],
      `the first chapter encoded and emptied before the second was encoded: ${JSON.stringify(seen)}`,
    );
    await s.call(`/v1/jobs/${job.id}`, { method: 'DELETE' });
  });
});
