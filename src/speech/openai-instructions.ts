// OpenAI's `instructions` is a free-text style prompt for its neural model. Our engines take no prompts, so only
// what maps onto a control we have is applied: the pace. Everything else is accepted and ignored (README says so).

/** Speaking rates for pace words; moderate, since "slowly" in a prompt means "noticeably", not "a quarter speed". */
const PACES: ReadonlyArray<{ pattern: RegExp; speed: number }> = [
  { pattern: /\b(very|extremely|really)\s+(slow|slowly)\b/i, speed: 0.7 },
  { pattern: /\b(very|extremely|really)\s+(fast|quick|quickly|rapid|rapidly)\b/i, speed: 1.5 },
  { pattern: /\b(slow|slowly|slower|unhurried|leisurely)\b/i, speed: 0.85 },
  { pattern: /\b(fast|faster|quick|quickly|rapid|rapidly|brisk|briskly|hurried)\b/i, speed: 1.2 },
];

/** The speed an instruction asks for ("Speak slowly and calmly" → 0.85), or undefined when it names no pace. */
export function speedFromInstructions(instructions: string | undefined): number | undefined {
  if (!instructions) return undefined;
  return PACES.find((p) => p.pattern.test(instructions))?.speed;
}
