// Placeholder until the analyses views land (issue 6); replaced, never shipped as is.
import { EmptyState } from '../../components/EmptyState.tsx';

export default function AnalysesView({ analysis }: { analysis: string | null }) {
  return <EmptyState title={analysis ?? 'Analyses'}>Not built yet.</EmptyState>;
}
