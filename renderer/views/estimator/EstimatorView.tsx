// Placeholder until the estimator view lands (issue 5); replaced, never shipped as is.
import { EmptyState } from '../../components/EmptyState.tsx';

export default function EstimatorView() {
  return <EmptyState title="Estimator">Not built yet.</EmptyState>;
}
