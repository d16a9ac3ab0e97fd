/**
 * The streaming bench's workload, shared by the fake model (bench/support/fake-services.ts) and the
 * measuring client: a tool call, then an answer of 1,200 characters (≈ 300 tokens) streamed in
 * pieces of 4–16 characters (1–4 tokens), at an instant pace or a model's (240 characters a second
 * ≈ 60 tokens/s, first token after 300 ms). The piece size of a run is named in its question, so
 * the stateless fake serves any number of conversations and the client knows how to read them.
 *
 * Every piece of at least 4 characters starts with a stamp of the moment the fake wrote it: the
 * epoch time in 0.1 ms units modulo 36⁴ (≈ 168 s), 4 base-36 digits, read against the client's
 * own clock (`performance.timeOrigin + now()`: the same wall clock in every process). A platform
 * that merges or splits deltas changes nothing: the client cuts the received text into the known
 * pieces again.
 */
import type { FakeRequest, FakeTurn } from '@agentry/testkit';

export const ANSWER_CHARS = 1200;
const STAMP_CHARS = 4;
const STAMP_MODULO = 36 ** STAMP_CHARS;
/** Piece sizes cycle through 4…16 characters in this order (every size once per 13 runs). */
const SIZES = Array.from({ length: 13 }, (_, i) => 4 + ((i * 5) % 13));

/** The two paces; `model` is the model name the agent (or the bare loop) asks the fake for. */
export const PACES = {
  instant: { model: 'stream-instant', firstTokenMs: 0, charsPerSecond: 0 },
  model: { model: 'stream-paced', firstTokenMs: 300, charsPerSecond: 240 },
} as const;
export type Pace = keyof typeof PACES;

const SENTENCE = 'Item 42 is in stock at the north warehouse, seven units, and a colleague will follow up by mail. ';
const ANSWER = SENTENCE.repeat(Math.ceil(ANSWER_CHARS / SENTENCE.length)).slice(0, ANSWER_CHARS);

const now = () => performance.timeOrigin + performance.now();

/**
 * The piece size of the i-th run: 4…16 characters, the same sequence in every mode.
 *
 * @example
 * chunkSizeFor(0); // 4
 */
export function chunkSizeFor(i: number): number {
  return SIZES[i % SIZES.length]!;
}

/**
 * The question of a run whose answer comes in pieces of `chunkSize` characters.
 *
 * @example
 * streamingQuestion(7); // 'How many of item 42 are in stock? Tell ann@example.com. (pieces of 7)'
 */
export function streamingQuestion(chunkSize: number): string {
  return `How many of item 42 are in stock? Tell ann@example.com. (pieces of ${chunkSize})`;
}

function stamp(): string {
  return Math.floor((now() * 10) % STAMP_MODULO)
    .toString(36)
    .padStart(STAMP_CHARS, '0');
}

/** ms from the stamp's moment to `at` (both epoch ms); a stamp is at most ≈ 84 s old. */
function stampAge(text: string, at: number): number {
  const sent = Number.parseInt(text, 36);
  const age = ((((at * 10 - sent) % STAMP_MODULO) + STAMP_MODULO) % STAMP_MODULO) / 10;
  // A reading a hair before the stamp (the two processes' clocks) wraps to ≈ 168 s: take it as negative.
  return age > STAMP_MODULO / 20 ? age - STAMP_MODULO / 10 : age;
}

/**
 * The fake model's answer for the streaming models (undefined for any other model): the tool call
 * first, the stamped answer once the last message is the tool's result.
 *
 * @example
 * fake.setResponder((req) => streamingTurn(req) ?? otherTurn(req));
 */
export function streamingTurn(req: FakeRequest): FakeTurn | undefined {
  const pace = Object.values(PACES).find((p) => p.model === req.body.model);
  if (!pace) return undefined;
  const chunkSize = Number(/\(pieces of (\d+)\)/.exec(JSON.stringify(req.body.messages ?? []))?.[1] ?? 8);
  const timing = {
    chunkSize,
    delayMs: pace.firstTokenMs,
    chunkDelayMs: pace.charsPerSecond ? (chunkSize * 1000) / pace.charsPerSecond : 0,
  };
  if (req.body.messages?.at(-1)?.role !== 'tool') {
    return {
      type: 'reply',
      toolCalls: [{ name: 'lookup_stock', arguments: { item: '42', email: 'ann@example.com' } }],
      ...timing,
    };
  }
  return {
    type: 'reply',
    text: ANSWER,
    ...timing,
    onTextPiece: (piece) => (piece.length < STAMP_CHARS ? piece : stamp() + piece.slice(STAMP_CHARS)),
  };
}

/**
 * Reads a run's answer as it arrives (`onText` per delta, any split): the delay of every whole
 * piece from its stamp to its arrival goes to `delays` (ms), the characters received to `chars`.
 *
 * @example
 * const reader = deltaDelays(7);
 * await streamRun(p, id, streamingQuestion(7), reader.onText);
 * reader.delays; // one per whole 7-character piece
 */
export function deltaDelays(chunkSize: number) {
  const whole = Math.floor(ANSWER_CHARS / chunkSize);
  let text = '';
  let next = 0;
  const reader = {
    delays: [] as number[],
    chars: 0,
    onText(delta: string) {
      const at = now();
      text += delta;
      reader.chars = text.length;
      for (; next < whole && (next + 1) * chunkSize <= text.length; next++) {
        const start = next * chunkSize;
        reader.delays.push(stampAge(text.slice(start, start + STAMP_CHARS), at));
      }
    },
  };
  return reader;
}
