// Placeholder until the policy lab lands (issue 7); replaced, never shipped as is.
import { EmptyState } from '../../components/EmptyState.tsx';

export default function PolicyLabView() {
  return <EmptyState title="Policy lab">Not built yet.</EmptyState>;
}
