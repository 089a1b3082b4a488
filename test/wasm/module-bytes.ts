// Hand-made WebAssembly modules for the binary readers' tests: the pieces both test files build from.

export const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
/** A memory section with one memory of these limits (flags, initial[, maximum]). */
export const MEMORY = (limits: number[]) => [0x05, limits.length + 1, 0x01, ...limits];
export const EXPORT_MEMORY = [0x07, 0x0a, 0x01, 0x06, ...Buffer.from('memory'), 0x02, 0x00];
