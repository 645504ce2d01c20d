/** The first-divergence mark: one path forking in two (drawn like renderer/components/icons.tsx's line icons). */
export function DivergeIcon({ size = 14 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <path d="M12 3v7M12 10l-6 8M12 10l6 8" />
      <circle cx="6" cy="19.5" r="1.5" />
      <circle cx="18" cy="19.5" r="1.5" />
    </svg>
  );
}
