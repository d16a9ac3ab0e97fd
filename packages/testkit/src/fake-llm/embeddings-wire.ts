import { hashEmbedding } from '@agentry/provider-demo';

/** The vector length the fake answers with when a request names no `dimensions`. */
export const FAKE_EMBEDDING_DIMENSIONS = 256;

/** The most inputs one fake request takes (OpenAI's own limit is 2048). */
const MAX_INPUTS = 2048;
const MAX_DIMENSIONS = 4096;

/** A valid `/v1/embeddings` body, or why not (answered as a 400). */
export type EmbeddingsBody =
  | { ok: true; inputs: string[]; model: string; dimensions: number; encoding: 'float' | 'base64' }
  | { ok: false; message: string };

/**
 * Reads an OpenAI embeddings request body: `input` a string or an array of strings (token arrays
 * are not supported by the fake; empty strings are refused as OpenAI refuses them), optional
 * `dimensions` and `encoding_format`.
 *
 * @example
 * parseEmbeddingsBody({ model: 'text-embedding-3-small', input: ['a', 'b'] }); // { ok: true, inputs: ['a', 'b'], … }
 */
export function parseEmbeddingsBody(body: Record<string, unknown>): EmbeddingsBody {
  const input = body.input;
  const inputs = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(inputs) || inputs.length === 0 || !inputs.every((text) => typeof text === 'string')) {
    return { ok: false, message: "'input' must be a string or a non-empty array of strings" };
  }
  // As OpenAI does: an empty text is a caller's bug (an empty chunk), not something to embed.
  const empty = inputs.indexOf('');
  if (empty !== -1) return { ok: false, message: `'$.input[${empty}]' is invalid: empty strings are not allowed` };
  if (inputs.length > MAX_INPUTS) return { ok: false, message: `'input' takes at most ${MAX_INPUTS} items` };
  const dimensions = body.dimensions ?? FAKE_EMBEDDING_DIMENSIONS;
  if (
    typeof dimensions !== 'number' ||
    !Number.isInteger(dimensions) ||
    dimensions < 1 ||
    dimensions > MAX_DIMENSIONS
  ) {
    return { ok: false, message: `'dimensions' must be an integer between 1 and ${MAX_DIMENSIONS}` };
  }
  const encoding = body.encoding_format ?? 'float';
  if (encoding !== 'float' && encoding !== 'base64') {
    return { ok: false, message: "'encoding_format' must be 'float' or 'base64'" };
  }
  const model = typeof body.model === 'string' ? body.model : 'fake-embedding';
  return { ok: true, inputs: inputs as string[], model, dimensions, encoding };
}

/** Little-endian float32 bytes as base64, the wire form of `encoding_format: 'base64'`. */
function toBase64(vector: Float32Array): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes.toString('base64');
}

/**
 * The OpenAI embeddings answer for a parsed request, with the built-in hashing vectors (so texts
 * sharing words are similar) and a rough token count (words and CJK characters).
 *
 * @example
 * embeddingsResponse({ ok: true, inputs: ['hi'], model: 'm', dimensions: 8, encoding: 'float' });
 */
export function embeddingsResponse(request: Extract<EmbeddingsBody, { ok: true }>): Record<string, unknown> {
  const data = request.inputs.map((text, index) => {
    const vector = hashEmbedding(text, request.dimensions);
    return {
      object: 'embedding',
      index,
      embedding: request.encoding === 'base64' ? toBase64(vector) : Array.from(vector),
    };
  });
  const tokens = request.inputs.reduce((sum, text) => sum + roughTokens(text), 0);
  return { object: 'list', data, model: request.model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
}

function roughTokens(text: string): number {
  return Math.max(1, text.match(/[\p{Script=Han}]|[\p{L}\p{N}]+/gu)?.length ?? 0);
}
