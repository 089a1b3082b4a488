// A cheap structural check of an .onnx file before any worker loads it: the ModelProto's protobuf fields are
// walked with their bodies skipped (weights are never read), so a truncated download, an HTML error page
// saved under a model's name or an empty file is reported at start instead of failing a request. The graph's
// input names are read on the way, so a model that does not fit its role (Piper vs Kokoro) is reported too.
import { open, type FileHandle } from 'node:fs/promises';

const MODEL_GRAPH = 7;
const GRAPH_INPUT = 11;
const VALUE_INFO_NAME = 1;

export type OnnxCheck = { ok: true; inputs: string[] } | { ok: false; reason: string };

class Reader {
  private readonly buf = Buffer.alloc(10);
  constructor(
    private readonly file: FileHandle,
    readonly size: number,
  ) {}

  async varint(at: number): Promise<{ value: number; next: number }> {
    const { bytesRead } = await this.file.read(this.buf, 0, Math.min(10, this.size - at), at);
    let value = 0;
    let scale = 1;
    for (let i = 0; i < bytesRead; i++) {
      value += (this.buf[i] & 0x7f) * scale;
      scale *= 128;
      if ((this.buf[i] & 0x80) === 0) return { value, next: at + i + 1 };
    }
    throw new Error('cut off inside a field header');
  }

  async bytes(at: number, length: number): Promise<Buffer> {
    const out = Buffer.alloc(length);
    await this.file.read(out, 0, length, at);
    return out;
  }

  /**
   * Walks the fields between `from` and `to`, calling `visit` for each length-delimited one; returns where the
   * walk ended (past `to` when the last field claims more bytes than there are).
   */
  async walk(from: number, to: number, visit: (field: number, start: number, length: number) => Promise<void>): Promise<number> {
    let at = from;
    while (at < to) {
      const key = await this.varint(at);
      at = key.next;
      const field = Math.floor(key.value / 8);
      const wire = key.value % 8;
      if (field === 0) throw new Error('not an ONNX model (field number 0)');
      if (wire === 0) at = (await this.varint(at)).next;
      else if (wire === 1) at += 8;
      else if (wire === 5) at += 4;
      else if (wire === 2) {
        const length = await this.varint(at);
        at = length.next;
        if (at + length.value <= to) await visit(field, at, length.value);
        at += length.value;
      } else throw new Error(`not an ONNX model (wire type ${wire})`);
    }
    return at;
  }
}

/** Whether `path` is a whole ONNX model, and its graph's input names. */
export async function checkOnnxFile(path: string): Promise<OnnxCheck> {
  const file = await open(path, 'r');
  try {
    const size = (await file.stat()).size;
    if (size === 0) return { ok: false, reason: 'the file is empty' };
    const r = new Reader(file, size);
    let graph: { start: number; length: number } | undefined;
    const end = await r.walk(0, size, async (field, start, length) => {
      if (field === MODEL_GRAPH) graph = { start, length };
    });
    if (end > size) return { ok: false, reason: `truncated: ${size} bytes, the last field needs ${end}` };
    if (!graph) return { ok: false, reason: 'not an ONNX model (no graph)' };
    const inputs: string[] = [];
    await r.walk(graph.start, graph.start + graph.length, async (field, start, length) => {
      if (field !== GRAPH_INPUT || length > 4096) return;
      const info = await r.bytes(start, length);
      let at = 0;
      while (at < info.length) {
        const key = info[at++];
        let len = 0;
        let shift = 0;
        for (;;) {
          const b = info[at++];
          len |= (b & 0x7f) << shift;
          shift += 7;
          if ((b & 0x80) === 0 || at >= info.length) break;
        }
        if (key >> 3 === VALUE_INFO_NAME && (key & 7) === 2) inputs.push(info.toString('utf8', at, at + len));
        at += len;
      }
    });
    return { ok: true, inputs };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  } finally {
    await file.close();
  }
}
