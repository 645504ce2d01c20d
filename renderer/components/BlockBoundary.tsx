/**
 * An error boundary around one rendered block of log text: if rendering it throws (a parser's stack overflow, a
 * plugin's bug on text nobody foresaw), that block shows its fallback and every other block, and the window,
 * stay as they were (issue 38 item 1: one message used to unmount the whole app). A new `resetKey` (new text)
 * tries rendering again.
 */
import { Component, type ReactNode } from 'react';

interface Props {
  /** What stands in for the block once it failed. */
  fallback: ReactNode;
  /** The block's identity: when it changes, the block is rendered afresh. */
  resetKey: string;
  children: ReactNode;
}

interface State {
  failed: boolean;
  /** The resetKey the state belongs to. */
  key: string;
}

export class BlockBoundary extends Component<Props, State> {
  override state: State = { failed: false, key: this.props.resetKey };

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey === state.key ? null : { failed: false, key: props.resetKey };
  }

  static getDerivedStateFromError(): Partial<State> {
    return { failed: true };
  }

  override render(): ReactNode {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}
