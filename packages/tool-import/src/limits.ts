/** The bounds of an import; every one is checked before the work it bounds. */
export const importLimits = {
  /** A document (or all documents fetched for it, remote `$ref`s included), in bytes. */
  maxDocumentBytes: 5 * 1024 * 1024,
  /** Operations a document may have. */
  maxOperations: 1000,
  /** How deeply a document may nest objects and arrays. */
  maxDepth: 100,
  /** `$ref`s a document may hold (local and remote). */
  maxRefs: 10_000,
  /**
   * Nodes the document would have with every local `$ref` replaced by what it points to (cycles
   * counted once): the dereferencer's work grows with it, exponentially in a crafted document.
   */
  maxExpandedNodes: 500_000,
  /** Remote documents fetched for `$ref`s. */
  maxRemoteDocuments: 10,
  /** Remote `$ref`s inlined (a remote cycle would go on forever). */
  maxRemoteRefs: 200,
  /** Milliseconds for validating, dereferencing and building in the worker thread (then it is ended). */
  buildTimeoutMs: 30_000,
  /** The worker thread's heap ceiling, in MiB. */
  buildMemoryMb: 512,
  /** Milliseconds for dereferencing. */
  dereferenceTimeoutMs: 5_000,
  /** A cURL command line, in characters. */
  maxCurlLength: 64 * 1024,
} as const;
