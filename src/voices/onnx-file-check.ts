// A cheap structural check of an .onnx file before any worker loads it: the ModelProto's top-level
// protobuf fields are walked (their bodies skipped, not read), so a truncated download, an HTML error page
// saved under a model's name or an empty file is reported at start instead of failing a request.
import { open } from 'node:fs/promises';

const GRAPH_FIELD = 7;

/** Resolves to a reason when `path` is not a whole ONNX model, or null when it looks whole. */
export async function onnxFileProblem(path: string): Promise<string | null> {
  const file = await open(path, 'r');
  try {
    const size = (await file.stat()).size;
    if (size === 0) return 'the file is empty';
    const buf = Buffer.alloc(10);
    let at = 0;
    let sawGraph = false;
    const varint = async (): Promise<number> => {
      const { bytesRead } = await file.read(buf, 0, Math.min(10, size - at), at);
      let value = 0;
      let scale = 1;
      for (let i = 0; i < bytesRead; i++) {
        value += (buf[i] & 0x7f) * scale;
        scale *= 128;
        if ((buf[i] & 0x80) === 0) {
          at += i + 1;
          return value;
        }
      }
      throw new Error('cut off inside a field header');
    };
    while (at < size) {
      const key = await varint();
      const field = Math.floor(key / 8);
      const wire = key % 8;
      if (field === 0) throw new Error('not an ONNX model (field number 0)');
      if (wire === 0) await varint();
      else if (wire === 1) at += 8;
      else if (wire === 5) at += 4;
      else if (wire === 2) {
        const length = await varint(); // read before adding: `at += await ...` would add to the stale position
        at += length;
      }
      else throw new Error(`not an ONNX model (wire type ${wire})`);
      if (field === GRAPH_FIELD && wire === 2) sawGraph = true;
    }
    if (at > size) return `truncated: ${size} bytes, the last field needs ${at}`;
    return sawGraph ? null : 'not an ONNX model (no graph)';
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    await file.close();
  }
}
