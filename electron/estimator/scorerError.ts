/**
 * Thrown for files that are not RouteLens estimator graphs, and for providers that cannot run. Its own module: the
 * commands and analyses that turn it into a user's error catch it without loading ONNX Runtime.
 */
export class ScorerError extends Error {
  override name = 'ScorerError';
}
