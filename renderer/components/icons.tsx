/** The few line icons the UI uses, drawn inline (no icon font, nothing fetched). */
import type { ReactNode } from 'react';

function Icon({ children, size = 16 }: { children: ReactNode; size?: number }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.8}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
    >
      {children}
    </svg>
  );
}

export const RunsIcon = () => (
  <Icon size={20}>
    <rect x="3" y="4" width="18" height="4" rx="1" />
    <rect x="3" y="10" width="18" height="4" rx="1" />
    <rect x="3" y="16" width="18" height="4" rx="1" />
  </Icon>
);

export const EpisodesIcon = () => (
  <Icon size={20}>
    <rect x="3" y="4" width="18" height="16" rx="2" />
    <path d="M3 9h18M3 14h18M9 9v11" />
  </Icon>
);

export const InspectorIcon = () => (
  <Icon size={20}>
    <path d="M3 17h3l3-8 4 10 3-6h5" />
  </Icon>
);

export const AnalysesIcon = () => (
  <Icon size={20}>
    <path d="M4 20V10M10 20V4M16 20v-7M21 20H3" />
  </Icon>
);

export const EstimatorIcon = () => (
  <Icon size={20}>
    <circle cx="6" cy="7" r="2" />
    <circle cx="6" cy="17" r="2" />
    <circle cx="18" cy="12" r="2" />
    <path d="M8 7.6l8 3.6M8 16.4l8-3.6" />
  </Icon>
);

export const PolicyIcon = () => (
  <Icon size={20}>
    <path d="M4 6h5l3 6h8M12 12l-3 6H4M17 9l3 3-3 3" />
  </Icon>
);

export const CompareIcon = () => (
  <Icon size={20}>
    <path d="M4 5h6v14H4zM14 5h6v14h-6M10 9h4M10 15h4" />
  </Icon>
);

export const SunIcon = () => (
  <Icon>
    <circle cx="12" cy="12" r="4" />
    <path d="M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4" />
  </Icon>
);

export const MoonIcon = () => (
  <Icon>
    <path d="M20 14.5A8 8 0 0 1 9.5 4a8 8 0 1 0 10.5 10.5z" />
  </Icon>
);

export const DatabaseIcon = () => (
  <Icon>
    <ellipse cx="12" cy="5.5" rx="7" ry="2.5" />
    <path d="M5 5.5v13c0 1.4 3.1 2.5 7 2.5s7-1.1 7-2.5v-13M5 12c0 1.4 3.1 2.5 7 2.5s7-1.1 7-2.5" />
  </Icon>
);

export const ChevronDownIcon = () => (
  <Icon size={14}>
    <path d="M6 9l6 6 6-6" />
  </Icon>
);

export const ChevronLeftIcon = () => (
  <Icon size={14}>
    <path d="M15 6l-6 6 6 6" />
  </Icon>
);

export const ChevronRightIcon = () => (
  <Icon size={14}>
    <path d="M9 6l6 6-6 6" />
  </Icon>
);

export const SearchIcon = () => (
  <Icon size={14}>
    <circle cx="11" cy="11" r="6.5" />
    <path d="M20 20l-4-4" />
  </Icon>
);

export const CloseIcon = () => (
  <Icon size={14}>
    <path d="M6 6l12 12M18 6L6 18" />
  </Icon>
);

export const ErrorIcon = () => (
  <Icon size={14}>
    <path d="M12 3l9.5 17h-19z" />
    <path d="M12 10v4M12 17.5v.01" />
  </Icon>
);

export const SwitchIcon = () => (
  <Icon size={14}>
    <path d="M4 8h13l-3-3M20 16H7l3 3" />
  </Icon>
);

export const CheckIcon = () => (
  <Icon size={14}>
    <path d="M5 12.5l4.5 4.5L19 7.5" />
  </Icon>
);

export const ImportIcon = () => (
  <Icon size={14}>
    <path d="M12 4v11M7.5 10.5L12 15l4.5-4.5" />
    <path d="M4 15v3.5A1.5 1.5 0 0 0 5.5 20h13a1.5 1.5 0 0 0 1.5-1.5V15" />
  </Icon>
);

export const BellIcon = () => (
  <Icon size={16}>
    <path d="M6 16V11a6 6 0 0 1 12 0v5l1.5 2h-15z" />
    <path d="M10 20.5a2 2 0 0 0 4 0" />
  </Icon>
);

/** A page with an arrow out of it: sharing a case as a file. */
export const ShareIcon = () => (
  <Icon>
    <path d="M14 3h-8a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-6" />
    <path d="M15 3h6v6" />
    <path d="M10 14 21 3" />
  </Icon>
);
